// Consumers of the public documents through the real CLI: `plan --emit FORMAT --out DIR` writes what a plan emitter
// returns, `report RUN --format FORMAT` what a run reporter returns; builtin formats, a pack's, and the refusals.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { baseEnv, runCli } from '../support/cli.js';
import { assertNoCanary, errorDocument, outcome, unique, useWorkspace, workflow } from './helpers.js';
import { packProject, writeConfig, type Project } from './pack-project.js';

const sha256 = (text: string | Buffer) => `sha256:${createHash('sha256').update(text).digest('hex')}`;

/** Two shell tasks under approval: `touch` succeeds, `boom` prints the secret and exits 3. */
const REPORTED = workflow(
  {
    policy: { processAllowlist: ['sh'], writableRoots: ['.'], environmentAllowlist: ['TOKEN'], approval: 'mutations' },
    actions: {
      touch: { kind: 'builtin.shell.exec', command: 'sh', args: ['-c', 'echo hi > marker'] },
      boom: { kind: 'builtin.shell.exec', command: 'sh', args: ['-c', 'echo "token=$TOKEN"; echo "$TOKEN" >&2; exit 3'], env: { TOKEN: { env: 'REPORT_CANARY' } } },
    },
    tasks: [
      { id: 'touch', uses: 'action:touch' },
      { id: 'boom', uses: 'action:boom', needs: ['touch'] },
    ],
  },
  'report-demo',
);

describe('plan --emit and report', () => {
  const state = useWorkspace();
  const ws = () => state.ws;

  describe('plan --emit', () => {
    it('--emit json --out DIR writes the exact plan document `plan --output json` prints, and a PlanEmit document', () => {
      const file = ws().write('wf.yaml', REPORTED);
      const printed = outcome(runCli(['plan', file, '--output', 'json']), 0);
      const emitted = outcome(runCli(['plan', file, '--emit', 'json', '--out', ws().file('out/plan'), '--output', 'json']), 0);
      const text = readFileSync(ws().file('out/plan/plan.json'), 'utf8');
      expect(JSON.parse(text)).to.deep.equal(printed.data);
      expect(text).to.equal(`${JSON.stringify(printed.data, null, 2)}\n`);
      expect(emitted.kind).to.equal('PlanEmit');
      expect(emitted.data).to.deep.equal({
        format: 'json',
        out: ws().file('out/plan'),
        workflow: 'report-demo',
        planDigest: printed.data.planDigest,
        files: [{ path: 'plan.json', bytes: Buffer.byteLength(text), sha256: sha256(text) }],
      });
      // Written atomically: nothing but the file itself is left in the folder.
      expect(readdirSync(ws().file('out/plan'))).to.deep.equal(['plan.json']);
      const human = runCli(['plan', file, '--emit', 'json', '--out', ws().file('out/plan')]);
      expect(human.status).to.equal(0);
      expect(human.stdout).to.equal(`wrote 1 file under ${ws().file('out/plan')} (json, plan ${printed.data.planDigest})\n  plan.json  ${Buffer.byteLength(text)} bytes\n`);
    });

    it('refuses an unknown format (listing the registered ones), --emit without --out, --out without --emit, and an --out that is a file', () => {
      const file = ws().write('wf.yaml', REPORTED);
      const unknown = errorDocument(runCli(['plan', file, '--emit', 'yaml', '--out', ws().file('o'), '--output', 'json']), 2);
      expect(unknown.diagnostics[0]).to.deep.include({ code: 'AGENTCTL_E_FORMAT_UNKNOWN', message: '--emit yaml: no plan emitter has this format', help: 'registered formats: argo, github-matrix, json, k8s-indexed-job; a pack in the project config can register more' });
      const noOut = errorDocument(runCli(['plan', file, '--emit', 'json', '--output', 'json']), 2);
      expect(noOut.diagnostics[0]).to.deep.include({ code: 'AGENTCTL_E_USAGE', message: '--emit json needs --out DIR: an emitter writes files' });
      const noEmit = errorDocument(runCli(['plan', file, '--out', ws().file('o'), '--output', 'json']), 2);
      expect(noEmit.diagnostics[0]).to.deep.include({ code: 'AGENTCTL_E_USAGE', message: '--out is given without --emit' });
      const taken = ws().write('taken', 'keep\n');
      const onFile = errorDocument(runCli(['plan', file, '--emit', 'json', '--out', taken, '--output', 'json']), 2);
      expect(onFile.diagnostics[0]).to.deep.include({ code: 'AGENTCTL_E_OUTPUT_PATH', message: `--out ${taken} is a file; plan --emit writes a folder of files` });
      expect(readFileSync(taken, 'utf8')).to.equal('keep\n');
      expect(existsSync(ws().file('o'))).to.equal(false);
    });
  });

  describe('report', () => {
    /** Runs REPORTED to its end: two approvals granted, the second task fails (exit 4). */
    const failedRun = (canary: string) => {
      const file = ws().write('wf.yaml', REPORTED);
      const env = baseEnv({ REPORT_CANARY: canary });
      const cli = (...args: string[]) => runCli([...args, '--db', ws().db, '--output', 'json'], { env });
      const runId = outcome(cli('run', file), 3).data.runId as string;
      outcome(cli('approvals', 'approve', outcome(cli('approvals', 'list', runId), 0).data[0].approvalId, '--reason', 'first ok'), 0);
      outcome(cli('resume', runId), 3);
      outcome(cli('approvals', 'approve', outcome(cli('approvals', 'list', runId), 0).data[0].approvalId, '--reason', 'second ok'), 0);
      errorDocument(cli('resume', runId), 4);
      return { runId, inspection: outcome(cli('inspect', runId), 0).data };
    };

    it('--format markdown: header with state and exit code, tasks with disposition, effects with class and risk, approvals; no secret value', () => {
      const canary = unique('canary');
      const { runId, inspection } = failedRun(canary);
      const result = runCli(['report', runId, '--format', 'markdown', '--db', ws().db]);
      expect(result.status, result.stderr).to.equal(0);
      const [touch, boom] = inspection.effects;
      const [first, second] = inspection.approvals;
      const seconds = (from: string, to: string) => `${((Date.parse(to) - Date.parse(from)) / 1000).toFixed(3)} s`;
      const [touchTask, boomTask] = inspection.tasks;
      expect(result.stdout).to.equal(
        [
          `# Run ${runId}`,
          '',
          '- workflow: report-demo',
          '- state: **failed**',
          '- exit code: 4',
          `- started: ${inspection.run.createdAt}`,
          `- finished: ${inspection.run.finishedAt}`,
          `- duration: ${seconds(inspection.run.createdAt, inspection.run.finishedAt)}`,
          `- trace: ${inspection.run.traceId}`,
          '- tasks: 2 (1 succeeded, 1 failed)',
          // The secret the process printed on stderr is recorded redacted; the cell escapes the brackets.
          '- error: AGENTCTL_E_RUN_FAILED task boom failed: sh exited with status 3: \\[REDACTED\\]',
          '',
          '## Failed tasks',
          '',
          '- **boom** (builtin.shell.exec, attempt 1): AGENTCTL_E_PROCESS_EXIT sh exited with status 3: \\[REDACTED\\]',
          "  - help: read the process's stderr in the message or with \\`agentctl inspect RUN\\`",
          '',
          '## Tasks',
          '',
          '| task | kind | state | disposition | attempt | duration | error |',
          '| --- | --- | --- | --- | --- | --- | --- |',
          `| touch | builtin.shell.exec | succeeded | executed | 1 | ${seconds(touchTask.startedAt, touchTask.finishedAt)} | — |`,
          `| boom | builtin.shell.exec | failed | executed | 1 | ${seconds(boomTask.startedAt, boomTask.finishedAt)} | AGENTCTL_E_PROCESS_EXIT |`,
          '',
          '## Effects',
          '',
          '| effect | task | operation | class | risk | idempotency | outcome | duration |',
          '| --- | --- | --- | --- | --- | --- | --- | --- |',
          `| ${touch.effectId} | touch | process.exec | process_execution | high | unknown | succeeded | ${seconds(touch.startedAt, touch.completedAt)} |`,
          `| ${boom.effectId} | boom | process.exec | process_execution | high | unknown | failed | ${seconds(boom.startedAt, boom.completedAt)} |`,
          '',
          '## Approvals',
          '',
          '| approval | task | operation | state | reason | decided by | decision |',
          '| --- | --- | --- | --- | --- | --- | --- |',
          `| ${first.approvalId} | touch | process.exec | approved | ${first.reason} | ${first.actor} | first ok |`,
          `| ${second.approvalId} | boom | process.exec | approved | ${second.reason} | ${second.actor} | second ok |`,
          '',
        ].join('\n'),
      );
      const written = runCli(['report', runId, '--format', 'markdown', '--db', ws().db, '--out', ws().file('report.md'), '--output', 'json']);
      assertNoCanary(canary, ws().dir, result.stdout, result.stderr, written.stdout, written.stderr);
    });

    it('--out FILE writes the report atomically and prints a RunReport document; without --out the JSON document carries the content', () => {
      const { runId } = failedRun(unique('canary'));
      const printed = runCli(['report', runId, '--format', 'markdown', '--db', ws().db]).stdout;
      const written = outcome(runCli(['report', runId, '--format', 'markdown', '--db', ws().db, '--out', ws().file('out.md'), '--output', 'json']), 0);
      expect(readFileSync(ws().file('out.md'), 'utf8')).to.equal(printed);
      expect(written.kind).to.equal('RunReport');
      expect(written.data).to.deep.equal({ runId, format: 'markdown', mediaType: 'text/markdown', out: ws().file('out.md'), bytes: Buffer.byteLength(printed), sha256: sha256(printed), content: null });
      expect(readdirSync(ws().dir).filter((name) => name.includes('.tmp'))).to.deep.equal([]);
      const carried = outcome(runCli(['report', runId, '--format', 'markdown', '--db', ws().db, '--output', 'json']), 0);
      expect(carried.data).to.deep.include({ out: null, content: printed, bytes: Buffer.byteLength(printed) });
    });

    it('refuses an unknown format, a run the database does not hold, an --out that is a folder or lies in a missing folder', () => {
      const { runId } = failedRun(unique('canary'));
      const report = (...args: string[]) => runCli(['report', ...args, '--db', ws().db, '--output', 'json']);
      expect(errorDocument(report(runId, '--format', 'pdf'), 2).diagnostics[0]).to.deep.include({ code: 'AGENTCTL_E_FORMAT_UNKNOWN', message: '--format pdf: no run reporter has this format', help: 'registered formats: html, junit, markdown; a pack in the project config can register more' });
      expect(errorDocument(report('run_missing', '--format', 'markdown'), 2).diagnostics[0].code).to.equal('AGENTCTL_E_RUN_NOT_FOUND');
      mkdirSync(ws().file('folder'));
      expect(errorDocument(report(runId, '--format', 'markdown', '--out', ws().file('folder')), 2).diagnostics[0]).to.deep.include({ code: 'AGENTCTL_E_OUTPUT_PATH', message: `--out ${ws().file('folder')} is a folder; report writes one file` });
      expect(errorDocument(report(runId, '--format', 'markdown', '--out', ws().file('missing/r.md')), 2).diagnostics[0]).to.deep.include({ code: 'AGENTCTL_E_OUTPUT_PATH', message: `--out ${ws().file('missing/r.md')}: the folder ${ws().file('missing')} does not exist` });
      expect(existsSync(ws().file('missing'))).to.equal(false);
    });
  });

  describe('formats a pack registers', () => {
    let project: Project;
    afterEach(() => project?.cleanup());

    it('a pack in the project config adds a run reporter (given the audit it asks for) and a plan emitter whose escaping path is refused', () => {
      project = packProject(['consumers']);
      writeConfig(project, { packs: [{ path: './packs/consumers' }] });
      const file = project.write('wf.yaml', workflow({ actions: { set: { kind: 'builtin.assign' } }, tasks: [{ id: 'set', uses: 'action:set', with: { x: 1 } }] }));
      const runId = outcome(runCli(['run', file, '--db', project.db, '--output', 'json'], { cwd: project.dir }), 0).data.runId;
      const csv = runCli(['report', runId, '--format', 'tasks-csv', '--db', project.db], { cwd: project.dir });
      expect(csv.status, csv.stderr).to.equal(0);
      expect(csv.stdout).to.equal(`run,${runId},audit\nset,succeeded\n`);
      const listed = outcome(runCli(['plugins', 'list', '--output', 'json'], { cwd: project.dir }), 0).data.plugins.find((plugin: any) => plugin.name === 'agentctl-pack-consumers');
      expect(listed).to.deep.include({ source: 'path', planEmitters: ['escape', 'shards'], runReporters: ['tasks-csv'] });
      const escaped = errorDocument(runCli(['plan', file, '--emit', 'escape', '--out', project.file('emitted'), '--output', 'json'], { cwd: project.dir }), 2);
      expect(escaped.diagnostics[0]).to.deep.include({ code: 'AGENTCTL_E_EMIT_PATH', message: 'plan emitter escape returned the path "../escaped.txt": an emitted path is relative to --out, without empty, `.` or `..` segments' });
      // Nothing is written when one path is refused, not even the good one.
      expect(existsSync(project.file('emitted'))).to.equal(false);
      expect(existsSync(project.file('escaped.txt'))).to.equal(false);
      // --emit-option: the emitter's schema parses the values (JSON when they parse) and applies its defaults.
      const plan = (...args: string[]) => runCli(['plan', file, '--emit', 'shards', '--out', project.file('shards'), ...args, '--output', 'json'], { cwd: project.dir });
      expect(outcome(plan('--emit-option', 'shards=3'), 0).data.files.map((entry: { path: string }) => entry.path)).to.deep.equal(['shard-1.txt', 'shard-2.txt', 'shard-3.txt']);
      expect(readFileSync(project.file('shards/shard-3.txt'), 'utf8')).to.equal('test 3/3\n');
      rmSync(project.file('shards'), { recursive: true });
      expect(outcome(plan(), 0).data.files).to.have.length(1);
      rmSync(project.file('shards'), { recursive: true });
      const refused = (args: string[], message: string) => {
        const refusal = errorDocument(plan(...args), 2);
        expect(refusal.diagnostics[0]).to.deep.include({ code: 'AGENTCTL_E_USAGE', message });
        expect(existsSync(project.file('shards'))).to.equal(false);
      };
      refused(['--emit-option', 'shards=9'], '--emit-option: the options of emitter shards do not match: shards: Too big: expected number to be <=8');
      refused(['--emit-option', 'colour=red'], '--emit-option: the options of emitter shards do not match: (options): Unrecognized key: "colour"');
      refused(['--emit-option', 'shards'], '--emit-option "shards" is not KEY=VALUE');
      const noOptions = errorDocument(runCli(['plan', file, '--emit', 'json', '--out', project.file('plain'), '--emit-option', 'shards=2', '--output', 'json'], { cwd: project.dir }), 2);
      expect(noOptions.diagnostics[0]).to.deep.include({ code: 'AGENTCTL_E_USAGE', message: '--emit-option: emitter json takes no options' });
      expect(existsSync(project.file('plain'))).to.equal(false);
      // Without the config, the pack's formats are unknown.
      writeFileSync(project.file('agentctl.config.mjs'), 'export default {};\n');
      expect(errorDocument(runCli(['report', runId, '--format', 'tasks-csv', '--db', project.db, '--output', 'json'], { cwd: project.dir }), 2).diagnostics[0].code).to.equal('AGENTCTL_E_FORMAT_UNKNOWN');
    });
  });
});
