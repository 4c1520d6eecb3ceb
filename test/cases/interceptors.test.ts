// Interceptors of a pack from the project config, through the real CLI: one frozen input per effect and dispatch, in
// the order the run performs them, the values `next` returned passed through unchanged, and a throw that fails its
// task naming the pack.
import { existsSync, readFileSync } from 'node:fs';
import { expect } from 'chai';
import { runCli } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome, rows, workflow } from './helpers.js';
import { packProject, writeConfig, type Project } from './pack-project.js';

const WORKFLOW = workflow({
  runtime: { maxConcurrency: 1 },
  policy: { approval: 'never', writableRoots: ['out'], processAllowlist: ['echo'] },
  actions: { save: { kind: 'builtin.write' }, say: { kind: 'builtin.shell.exec', command: 'echo', args: ['hello'] } },
  tasks: [
    { id: 'save', uses: 'action:save', with: { path: 'out/a.txt', content: 'A' } },
    { id: 'say', uses: 'action:say', needs: ['save'] },
  ],
});

describe('interceptors of a pack', () => {
  let project: Project;
  afterEach(() => project?.cleanup());

  const setUp = (options: Record<string, unknown> = {}) => {
    project = packProject(['trace']);
    writeConfig(project, { packs: [{ path: './packs/trace', options: { log: project.file('intercepted.jsonl'), ...options } }] });
    project.write('wf.yaml', WORKFLOW);
  };
  const run = () => runCli(['run', 'wf.yaml', '--db', project.db, '--output', 'json'], { cwd: project.dir });
  const intercepted = () => readFileSync(project.file('intercepted.jsonl'), 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line));

  it('see every dispatch and effect of the run in order, each with one frozen input, and pass on what next returned', () => {
    setUp();
    const document = outcome(run(), 0);
    const [{ trace_id: traceId }] = rows(project.db, 'SELECT trace_id FROM runs');
    const effects = rows(project.db, 'SELECT id, task_id, operation, input_json, result_json FROM effects ORDER BY rowid');
    const tasks = Object.fromEntries(rows(project.db, 'SELECT task_id, output_json FROM tasks').map((row) => [row.task_id, JSON.parse(row.output_json)]));
    expect(effects.map((effect) => [effect.task_id, effect.operation])).to.deep.equal([
      ['save', 'filesystem.write'],
      ['say', 'process.exec'],
    ]);
    const [write, exec] = effects;
    const common = { runId: document.data.runId, traceId, attempt: 1, signal: true, frozen: true, writable: false };
    const dispatchKeys = ['action', 'actionName', 'attempt', 'kind', 'runId', 'signal', 'taskId', 'traceId'];
    const effectKeys = ['attempt', 'effectId', 'input', 'kind', 'operation', 'profile', 'runId', 'signal', 'taskId', 'traceId'];
    expect(intercepted()).to.deep.equal([
      { at: 'dispatch', ...common, taskId: 'save', kind: 'builtin.write', actionName: 'save', action: {}, keys: dispatchKeys },
      { at: 'effect', ...common, taskId: 'save', kind: 'builtin.write', effectId: write.id, operation: 'filesystem.write', profile: { effectClass: 'workspace_mutate', risk: 'medium', idempotency: 'idempotent' }, profileFrozen: true, input: JSON.parse(write.input_json), keys: effectKeys },
      { at: 'effect returned', effectId: write.id, value: JSON.parse(write.result_json) },
      { at: 'dispatch returned', taskId: 'save', value: tasks.save },
      { at: 'dispatch', ...common, taskId: 'say', kind: 'builtin.shell.exec', actionName: 'say', action: intercepted()[4].action, keys: dispatchKeys },
      { at: 'effect', ...common, taskId: 'say', kind: 'builtin.shell.exec', effectId: exec.id, operation: 'process.exec', profile: { effectClass: 'process_execution', risk: 'high', idempotency: 'unknown' }, profileFrozen: true, input: JSON.parse(exec.input_json), keys: effectKeys },
      { at: 'effect returned', effectId: exec.id, value: JSON.parse(exec.result_json) },
      { at: 'dispatch returned', taskId: 'say', value: tasks.say },
    ]);
    expect(intercepted()[4].action).to.include({ command: 'echo' });
    expect(tasks.say).to.deep.include({ exitCode: 0, stdout: 'hello\n' });
  });

  it('a throw in a dispatch interceptor fails that task before its kind runs, naming the pack and hook', () => {
    setUp({ failDispatchOf: 'say' });
    const document = errorDocument(run(), 4);
    const item = diagnosticWithCode(document, 'AGENTCTL_E_PLUGIN_FAILED');
    expect(item).to.include({ plugin: 'agentctl-pack-trace', hook: 'interceptor:dispatch', message: 'plugin agentctl-pack-trace failed in hook interceptor:dispatch: no span for task say' });
    expect(rows(project.db, 'SELECT task_id, state, error_json FROM tasks ORDER BY position').map((row) => [row.task_id, row.state, JSON.parse(row.error_json ?? 'null')?.code ?? null])).to.deep.equal([
      ['save', 'succeeded', null],
      ['say', 'failed', 'AGENTCTL_E_PLUGIN_FAILED'],
    ]);
    expect(rows(project.db, 'SELECT task_id FROM effects')).to.deep.equal([{ task_id: 'save' }]);
  });

  it('a throw in an effect interceptor before next fails the effect, not performed, and its task, naming the pack', () => {
    setUp({ failEffectOf: 'save' });
    const document = errorDocument(run(), 4);
    expect(diagnosticWithCode(document, 'AGENTCTL_E_PLUGIN_FAILED')).to.include({ plugin: 'agentctl-pack-trace', hook: 'interceptor:effect', message: 'plugin agentctl-pack-trace failed in hook interceptor:effect: no span for filesystem.write' });
    const [effect] = rows(project.db, 'SELECT task_id, state, error_json FROM effects');
    expect(effect).to.include({ task_id: 'save', state: 'failed' });
    expect(JSON.parse(effect.error_json).code).to.equal('AGENTCTL_E_PLUGIN_FAILED');
    expect(existsSync(project.file('out/a.txt'))).to.equal(false);
    expect(rows(project.db, 'SELECT task_id, state FROM tasks ORDER BY position')).to.deep.equal([
      { task_id: 'save', state: 'failed' },
      { task_id: 'say', state: 'skipped' },
    ]);
  });
});
