// The GitHub Actions workflow of a sharded plan: a prepare job, a matrix job of one entry per shard, a gather job. The
// ledgers travel between the jobs as artifacts (state-prepare, state-shard-I, state-gather); the report of the gathered
// run goes to the gather job's summary.
import { stageArguments, stageLedger, type ShardedPlan, type StageLayout } from '@agentctl/sdk';
import type { GithubOptions } from './options.js';

/** The host folder of the stages' ledgers, in the checkout. */
const STATE = 'state';
/** The image's run contract, as docs/ci/README.md spells it for docker. */
const RUN_FLAGS = ['--rm', '--read-only', '--user', '65532:65532', '--tmpfs', '/tmp:rw,noexec,nosuid,size=16m', '--cap-drop', 'ALL', '--security-opt', 'no-new-privileges'];

export interface Resolved {
  readonly name: string;
  readonly workflowPath: string;
  readonly package: string;
  readonly options: GithubOptions;
}

/** One shell word: left bare when it is plain, else single-quoted (a GitHub expression is substituted before the shell). */
const word = (text: string) => (/^[A-Za-z0-9_./:=@%+,-]+$/.test(text) ? text : `'${text.replaceAll("'", `'"'"'`)}'`);
const line = (words: readonly string[]) => words.map(word).join(' ');
const continued = (words: readonly string[]) => words.join(' \\\n  ');

/** The agentctl command of each stage and of a report, for the chosen runner. */
function commands(plan: ShardedPlan, resolved: Resolved) {
  const image = resolved.options.runner === 'image';
  const folder = resolved.workflowPath.includes('/') ? resolved.workflowPath.slice(0, resolved.workflowPath.lastIndexOf('/')) : '';
  const layout: StageLayout = image
    ? { workflow: `/config/${resolved.workflowPath.slice(folder === '' ? 0 : folder.length + 1)}`, state: '/state', workspace: '/workspace', shardIndex: '${{ matrix.shard }}' }
    : { workflow: resolved.workflowPath, state: STATE, workspace: '.', shardIndex: '${{ matrix.shard }}' };
  const agentctl = (args: readonly string[], network: boolean) => {
    if (!image) return `npx --yes --package=${word(resolved.package)} -- agentctl ${line(args)}`;
    return continued([
      'docker run',
      line(RUN_FLAGS),
      ...(network ? [] : ['--network none']),
      `--mount "type=bind,src=$GITHUB_WORKSPACE${folder === '' ? '' : `/${folder}`},dst=/config,readonly"`,
      '--mount "type=bind,src=$GITHUB_WORKSPACE,dst=/workspace,readonly"',
      `--mount "type=bind,src=$GITHUB_WORKSPACE/${STATE},dst=/state"`,
      ...resolved.options.secrets.map((name) => `--env ${name}`),
      '"$AGENTCTL_IMAGE"',
      line(args),
    ]);
  };
  const stages = stageArguments(plan, layout);
  return {
    prepare: agentctl(stages.prepare, true),
    shard: agentctl(stages.shard, true),
    gather: agentctl(stages.gather, true),
    report: agentctl(['report', 'RUN_ID', '--format', 'markdown', '--db', stageLedger(layout.state, 'gather')], false).replace('RUN_ID', '"$AGENTCTL_RUN_ID"'),
  };
}

export function githubWorkflow(plan: ShardedPlan, resolved: Resolved): object {
  const { options } = resolved;
  const image = options.runner === 'image';
  const run = commands(plan, resolved);
  const secrets = options.secrets.length === 0 ? {} : { env: Object.fromEntries(options.secrets.map((name) => [name, `\${{ secrets.${name} }}`])) };
  const setup = image ? [] : [{ uses: 'actions/setup-node@v4', with: { 'node-version': options.nodeVersion } }];
  // The image runs as 65532: it gets the state folder before a stage, and the runner's user gets it back after.
  const own = (what: string) => (image ? [{ name: "Give the state folder to the image's user (65532)", run: what }] : []);
  const handBack = image ? [{ name: 'Hand the state folder back to the runner', if: 'always()', run: `sudo chown -R "$(id -u):$(id -g)" ${STATE}` }] : [];
  const upload = (name: string, path: string) => ({ uses: 'actions/upload-artifact@v4', if: 'always()', with: { name, path, 'retention-days': options.retentionDays, 'if-no-files-found': 'warn' } });
  const job = (steps: object[], extra: object = {}) => ({ 'runs-on': 'ubuntu-latest', 'timeout-minutes': options.timeoutMinutes, ...extra, steps: [{ uses: 'actions/checkout@v4' }, ...setup, ...steps] });
  const last = plan.shards - 1;
  return {
    name: resolved.name,
    on: { workflow_dispatch: {} },
    permissions: { contents: 'read' },
    // One scale-out run at a time per branch: the shards of two runs never meet in one gather.
    concurrency: { group: `${resolved.name}-\${{ github.ref }}`, 'cancel-in-progress': false },
    ...(image ? { env: { AGENTCTL_IMAGE: options.image } } : {}),
    jobs: {
      prepare: job([
        ...own(`sudo install -d -o 65532 -g 65532 -m 0700 ${STATE} ${STATE}/prepare`),
        { name: 'Run the prepare stage', ...secrets, run: run.prepare },
        ...handBack,
        upload('state-prepare', `${STATE}/prepare/`),
      ]),
      shard: job(
        [
          { uses: 'actions/download-artifact@v4', with: { name: 'state-prepare', path: `${STATE}/prepare` } },
          ...own(`mkdir -p ${STATE}/shards && sudo chown -R 65532:65532 ${STATE}`),
          { name: `Run shard \${{ matrix.shard }} of ${plan.shards}`, ...secrets, run: run.shard },
          ...handBack,
          upload('state-shard-${{ matrix.shard }}', `${STATE}/shards/\${{ matrix.shard }}/`),
        ],
        { needs: 'prepare', strategy: { 'fail-fast': false, ...(options.maxParallel === undefined ? {} : { 'max-parallel': options.maxParallel }), matrix: { shard: Array.from({ length: plan.shards }, (_, index) => index) } } },
      ),
      gather: job(
        [
          { uses: 'actions/download-artifact@v4', with: { pattern: 'state-shard-*', path: `${STATE}/incoming` } },
          { name: 'Put shard I\'s ledger in state/shards/I', run: `mkdir -p ${STATE}/shards\nfor i in $(seq 0 ${last}); do mv "${STATE}/incoming/state-shard-$i" "${STATE}/shards/$i"; done\n` },
          ...own(`mkdir -p ${STATE}/gather && sudo chown -R 65532:65532 ${STATE}`),
          {
            name: 'Gather the shards into one run',
            ...secrets,
            run: [
              'code=0',
              `${run.gather} > outcome.json 2> error.json || code=$?`,
              'cat outcome.json',
              'cat error.json >&2',
              '# The gathered run\'s report, whatever it ended in: its id is in the outcome, or (a failed run) in the error document.',
              'AGENTCTL_RUN_ID="$(jq -rs \'map(.data.runId // .error.runId // empty) | first // empty\' outcome.json error.json 2>/dev/null || true)"',
              'if [ -n "$AGENTCTL_RUN_ID" ]; then',
              `  ${run.report.replaceAll('\n', '\n  ')} >> "$GITHUB_STEP_SUMMARY" || true`,
              'fi',
              'exit "$code"',
              '',
            ].join('\n'),
          },
          ...handBack,
          upload('state-gather', `${STATE}/gather/`),
        ],
        { needs: 'shard' },
      ),
    },
  };
}
