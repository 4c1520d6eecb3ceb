// What the scale-out emitters write, run: each container's arguments of the Kubernetes Jobs and of the Argo Workflow
// (and each step of the GitHub workflow, npx runner) executed in order with the real CLI, the mounts as folders, the
// shard index expanded as the platform expands it, and artifacts as copied folders. The gathered run's output equals
// the whole run's, and every item's effect happened once.
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { expect } from 'chai';
import { parse } from 'yaml';
import { BIN, baseEnv, runCli, workspace } from '../support/cli.js';
import { outcome, useWorkspace } from './helpers.js';
import { fanoutWorkflow, ITEMS } from './scale-out-workflow.js';

type Folders = Record<string, string>;

/** The folder each mount path of a container comes from: the ConfigMap's folder, or the claim's folder and subPath. */
function mountFolders(container: any, volumes: any[], cluster: string): Folders {
  const folders: Folders = {};
  for (const mount of container.volumeMounts) {
    const volume = volumes.find((entry) => entry.name === mount.name);
    if (volume.configMap) folders[mount.mountPath] = join(cluster, 'configmaps', volume.configMap.name);
    else if (volume.persistentVolumeClaim) folders[mount.mountPath] = join(cluster, 'claims', volume.persistentVolumeClaim.claimName, mount.subPath ?? '');
  }
  for (const folder of Object.values(folders)) mkdirSync(folder, { recursive: true });
  return folders;
}

/** An argument with its mount paths replaced by the folders behind them. */
const onHost = (folders: Folders, argument: string) => Object.entries(folders).reduce((text, [path, folder]) => (text === path || text.startsWith(`${path}/`) ? folder + text.slice(path.length) : text), argument);

function agentctl(args: readonly string[]): any {
  return outcome(runCli([...args]), 0).data;
}

describe('plan emitters for scale-out: the emitted jobs, run', function () {
  this.timeout(120_000);
  const state = useWorkspace();
  let whole: any;

  before(() => {
    const single = workspace();
    try {
      whole = outcome(runCli(['run', single.write('fanout.yaml', fanoutWorkflow()), '--db', single.db, '--output', 'json']), 0).data;
    } finally {
      single.cleanup();
    }
  });

  const emitted = (format: string, ...options: string[]) => {
    state.ws.write('src/fanout.yaml', fanoutWorkflow());
    // From the repository's root, as a user runs it: the GitHub workflow names the file by this path.
    outcome(runCli(['plan', 'src/fanout.yaml', '--shards', '3', '--emit', format, '--out', 'emitted', ...options.flatMap((option) => ['--emit-option', option]), '--output', 'json'], { cwd: state.ws.dir }), 0);
    return (path: string) => readFileSync(state.ws.file(join('emitted', path)), 'utf8');
  };
  const items = (folder: string) => readFileSync(join(folder, 'log', 'items.txt'), 'utf8').trim().split('\n').sort();

  it('k8s-indexed-job: prepare, the Indexed Job\'s three completions and gather, as the pods would run them', () => {
    const read = emitted('k8s-indexed-job');
    const cluster = state.ws.file('cluster');
    const [prepare, shards, gather] = ['00-prepare-job.yaml', '10-shards-job.yaml', '20-gather-job.yaml'].map((path) => parse(read(path)));
    // The ConfigMap the README creates: the workflow under its file name.
    mkdirSync(join(cluster, 'configmaps', 'fanout-config'), { recursive: true });
    cpSync(state.ws.file('src/fanout.yaml'), join(cluster, 'configmaps', 'fanout-config', 'fanout.yaml'));
    const runPod = (job: any, index?: number) => {
      const pod = job.spec.template.spec;
      const container = pod.containers[0];
      const folders = mountFolders(container, pod.volumes, cluster);
      // Kubernetes expands $(NAME) from the container's env; JOB_COMPLETION_INDEX comes from the pod's annotation.
      const env: Record<string, string> = Object.fromEntries((container.env ?? []).map((entry: any) => [entry.name, entry.valueFrom?.fieldRef?.fieldPath === "metadata.annotations['batch.kubernetes.io/job-completion-index']" ? String(index) : entry.value]));
      return agentctl(container.args.map((argument: string) => onHost(folders, argument.replace(/\$\(([A-Z_]+)\)/g, (_, name: string) => env[name]!))));
    };
    const prepared = runPod(prepare);
    expect(prepared).to.deep.include({ state: 'succeeded', output: {} });
    const shardRuns = Array.from({ length: shards.spec.completions }, (_, index) => runPod(shards, index));
    expect(shardRuns.map((run) => run.state)).to.deep.equal(['succeeded', 'succeeded', 'succeeded']);
    const gathered = runPod(gather);
    expect(gathered).to.deep.include({ state: 'succeeded', mode: 'gather', sourceRunId: prepared.runId, shardRunIds: shardRuns.map((run) => run.runId) });
    expect(gathered.output).to.deep.equal(whole.output);
    const claim = join(cluster, 'claims', 'fanout-state');
    expect(items(join(claim, 'workspace'))).to.deep.equal([...ITEMS].sort());
    for (const stage of ['prepare/runtime.db', 'shards/0/runtime.db', 'shards/1/runtime.db', 'shards/2/runtime.db', 'gather/runtime.db']) expect(existsSync(join(claim, 'state', stage)), stage).to.equal(true);
  });

  it('argo: the DAG\'s prepare, the shard template for each item of withSequence, then gather', () => {
    const workflow = parse(emitted('argo', 'name=fan', 'configMap=fan-flows')('workflow.yaml'));
    const cluster = state.ws.file('cluster');
    mkdirSync(join(cluster, 'configmaps', 'fan-flows'), { recursive: true });
    cpSync(state.ws.file('src/fanout.yaml'), join(cluster, 'configmaps', 'fan-flows', 'fanout.yaml'));
    const templates = Object.fromEntries(workflow.spec.templates.map((template: any) => [template.name, template]));
    const runTemplate = (task: any, item?: string) => {
      const template = templates[task.template];
      const folders = mountFolders(template.container, workflow.spec.volumes, cluster);
      // Argo substitutes {{item}} into the task's arguments, and those into the template's {{inputs.parameters.NAME}}.
      const parameters = Object.fromEntries((task.arguments?.parameters ?? []).map((parameter: any) => [parameter.name, parameter.value.replace('{{item}}', item)]));
      return agentctl(template.container.args.map((argument: string) => onHost(folders, argument.replace(/\{\{inputs\.parameters\.([a-z]+)\}\}/g, (_, name: string) => parameters[name]))));
    };
    const [prepareTask, shardTask, gatherTask] = templates.stages.dag.tasks;
    const prepared = runTemplate(prepareTask);
    const shardRuns = Array.from({ length: Number(shardTask.withSequence.count) }, (_, index) => runTemplate(shardTask, String(index)));
    const gathered = runTemplate(gatherTask);
    expect(gathered).to.deep.include({ state: 'succeeded', sourceRunId: prepared.runId, shardRunIds: shardRuns.map((run) => run.runId) });
    expect(gathered.output).to.deep.equal(whole.output);
    expect(items(join(cluster, 'claims', 'fan-state', 'workspace'))).to.deep.equal([...ITEMS].sort());
  });

  it('github-matrix (npx runner): each job\'s steps in a fresh checkout, the ledgers handed on as artifacts', () => {
    const workflow = parse(emitted('github-matrix', 'runner=npx')('.github/workflows/fanout.yml'));
    const checkout = (name: string) => {
      const folder = state.ws.file(`runners/${name}`);
      mkdirSync(join(folder, 'src'), { recursive: true });
      cpSync(state.ws.file('src/fanout.yaml'), join(folder, 'src', 'fanout.yaml'));
      return folder;
    };
    const artifacts = state.ws.file('artifacts');
    // Runs a job's steps: `run` through bash with `npx ... agentctl` as this build of agentctl, the artifact actions as copies.
    const runJob = (name: string, job: any, shard?: number) => {
      const folder = checkout(name);
      const summary = join(folder, 'summary.md');
      writeFileSync(summary, '');
      const expression = (text: string) => text.replaceAll('${{ matrix.shard }}', String(shard));
      for (const step of job.steps) {
        if (step.uses?.startsWith('actions/upload-artifact@')) cpSync(join(folder, expression(step.with.path)), join(artifacts, expression(step.with.name)), { recursive: true });
        else if (step.uses?.startsWith('actions/download-artifact@') && step.with.name) cpSync(join(artifacts, step.with.name), join(folder, step.with.path), { recursive: true });
        else if (step.uses?.startsWith('actions/download-artifact@')) {
          for (const index of workflow.jobs.shard.strategy.matrix.shard) cpSync(join(artifacts, `state-shard-${index}`), join(folder, step.with.path, `state-shard-${index}`), { recursive: true });
        } else if (step.run) {
          const script = expression(step.run).replace(/npx --yes --package=\S+ -- agentctl/g, `"${process.execPath}" "${BIN}"`);
          const result = spawnSync('bash', ['-e', '-c', script], { cwd: folder, env: { ...baseEnv(), GITHUB_STEP_SUMMARY: summary }, encoding: 'utf8' });
          expect(result.status, `${name}: ${step.name}\n${result.stdout}\n${result.stderr}`).to.equal(0);
        }
      }
      return { folder, summary: readFileSync(summary, 'utf8') };
    };
    runJob('prepare', workflow.jobs.prepare);
    for (const shard of workflow.jobs.shard.strategy.matrix.shard) runJob(`shard-${shard}`, workflow.jobs.shard, shard);
    const gather = runJob('gather', workflow.jobs.gather);
    const gathered = JSON.parse(readFileSync(join(gather.folder, 'outcome.json'), 'utf8')).data;
    expect(gathered).to.deep.include({ state: 'succeeded', mode: 'gather' });
    expect(gathered.output).to.deep.equal(whole.output);
    expect(gather.summary).to.contain(gathered.runId);
    const shardItems = workflow.jobs.shard.strategy.matrix.shard.flatMap((shard: number) => (existsSync(join(state.ws.file(`runners/shard-${shard}`), 'log', 'items.txt')) ? items(state.ws.file(`runners/shard-${shard}`)) : []));
    expect(shardItems.sort()).to.deep.equal([...ITEMS].sort());
    expect(existsSync(join(artifacts, 'state-gather', 'runtime.db'))).to.equal(true);
  });
});
