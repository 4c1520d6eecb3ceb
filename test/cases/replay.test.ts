// `agentctl replay RUN` end to end: a new linked run from recorded results, with zero effects and nothing dispatched.
import { createHash } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { baseEnv, runCli, workspace } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome, rows, workflow } from './helpers.js';

/** Sorted keys at every depth, as agentctl digests outputs. */
const canonical = (value: unknown): string => {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const object = value as Record<string, unknown>;
  return `{${Object.keys(object).sort().map((key) => `${JSON.stringify(key)}:${canonical(object[key])}`).join(',')}}`;
};
const digestOf = (value: unknown) => `sha256:${createHash('sha256').update(canonical(value)).digest('hex')}`;

const shellAndWrite = (allowlist: string[]) =>
  workflow(
    {
      policy: { processAllowlist: allowlist, writableRoots: ['out'], approval: 'never' },
      outputs: { said: '${{ tasks.say.output.stdout }}', sha: '${{ tasks.save.output.sha256 }}' },
      actions: { say: { kind: 'builtin.shell.exec', command: '/bin/sh', args: ['-c', 'echo hello'] }, save: { kind: 'builtin.write' } },
      tasks: [
        { id: 'say', uses: 'action:say' },
        { id: 'save', uses: 'action:save', needs: ['say'], with: { path: 'out/said.txt', content: '${{ tasks.say.output.stdout }}' } },
      ],
    },
    'replayed',
  );

const TASK_COLUMNS = 'task_id, position, kind, state, attempt, input_json, output_json, error_json';

describe('replay', () => {
  let ws: ReturnType<typeof workspace>;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  const run = (file: string, exit: number) => {
    const result = runCli(['run', file, '--db', ws.db, '--output', 'json']);
    expect(result.status, result.stderr).to.equal(exit);
  };
  const lastRunId = () => rows(ws.db, 'SELECT id FROM runs ORDER BY created_at DESC, id DESC LIMIT 1')[0].id as string;
  const effectCount = (runId: string) => rows(ws.db, 'SELECT COUNT(*) AS n FROM effects WHERE run_id = ?', runId)[0].n as number;
  // No PATH and no other variable: replay must need no binary and no credential.
  const bareEnv = () => baseEnv({ PATH: '' });

  it('rebuilds a shell-and-write run with zero effects and the identical output digest, though the workflow file changed, then vanished, and PATH is empty', () => {
    const file = ws.write('flow.yaml', shellAndWrite(['sh']));
    const source = outcome(runCli(['run', file, '--db', ws.db, '--output', 'json']), 0);
    expect(effectCount(source.data.runId)).to.equal(2);
    // The file on disk now forbids every process; replay reads only the ledger.
    ws.write('flow.yaml', shellAndWrite([]));
    rmSync(ws.file('out/said.txt'));

    const first = outcome(runCli(['replay', source.data.runId, '--db', ws.db, '--output', 'json'], { env: bareEnv() }), 0);
    rmSync(file);
    const second = outcome(runCli(['replay', source.data.runId, '--db', ws.db, '--output', 'json'], { env: bareEnv() }), 0);

    for (const replay of [first, second]) {
      expect(replay.kind).to.equal('RunOutcome');
      expect(replay.ok).to.equal(true);
      expect(replay.data).to.deep.include({ state: 'succeeded', sourceRunId: source.data.runId, mode: 'replay', tasks: { say: 'succeeded', save: 'succeeded' } });
      expect(replay.data.output).to.deep.equal({ said: 'hello\n', sha: source.data.output.sha });
      expect(replay.data.output).to.deep.equal(source.data.output);
      expect(replay.data.outputDigest).to.equal(digestOf(source.data.output));
      expect(replay.data.runId).to.not.equal(source.data.runId);
      expect(effectCount(replay.data.runId)).to.equal(0);
      expect(rows(ws.db, 'SELECT COUNT(*) AS n FROM approvals WHERE run_id = ?', replay.data.runId)[0].n).to.equal(0);
      const [row] = rows(ws.db, 'SELECT * FROM runs WHERE id = ?', replay.data.runId);
      const [original] = rows(ws.db, 'SELECT * FROM runs WHERE id = ?', source.data.runId);
      expect(row).to.deep.include({ mode: 'replay', source_run_id: source.data.runId, state: 'succeeded', lease_owner: null, output_json: original.output_json });
      for (const column of ['workflow_name', 'workflow_digest', 'workflow_file', 'workflow_source', 'plan_json', 'inputs_json', 'workspace', 'memory_json']) expect(row[column], column).to.equal(original[column]);
      expect(JSON.parse(row.plan_json).policy.processAllowlist).to.deep.equal(['sh']);
      // Every task is the source's recorded result, disposition `recorded`.
      expect(rows(ws.db, `SELECT ${TASK_COLUMNS} FROM tasks WHERE run_id = ? ORDER BY position`, replay.data.runId)).to.deep.equal(
        rows(ws.db, `SELECT ${TASK_COLUMNS} FROM tasks WHERE run_id = ? ORDER BY position`, source.data.runId),
      );
      expect(rows(ws.db, 'SELECT DISTINCT disposition FROM tasks WHERE run_id = ?', replay.data.runId)).to.deep.equal([{ disposition: 'recorded' }]);
      // The written file's artifact reference is the source's: same task, path and digest.
      const artifacts = (runId: string) => rows(ws.db, 'SELECT task_id, path, digest FROM task_artifacts WHERE run_id = ? ORDER BY task_id, path', runId);
      expect(artifacts(source.data.runId)).to.have.length.greaterThan(0);
      expect(artifacts(replay.data.runId)).to.deep.equal(artifacts(source.data.runId));
      const replayed = rows(ws.db, `SELECT data_json FROM audit_events WHERE run_id = ? AND type = 'run.replayed'`, replay.data.runId);
      expect(replayed.map((event) => JSON.parse(event.data_json))).to.deep.equal([{ sourceRunId: source.data.runId, sourceTraceId: source.data.traceId, outputDigest: replay.data.outputDigest, tasks: 2, state: 'succeeded', traceId: replay.data.traceId, workflow: 'replayed' }]);
    }
    expect(existsSync(ws.file('out/said.txt')), 'the write was not repeated').to.equal(false);
    expect(rows(ws.db, 'SELECT COUNT(*) AS n FROM effects')[0].n).to.equal(2);
  });

  it('reproduces a failed run: exit 4, the error document names the failed task, zero effects', () => {
    const file = ws.write(
      'fail.yaml',
      workflow({
        policy: { processAllowlist: ['sh'], approval: 'never' },
        actions: { ok: { kind: 'builtin.assign' }, bad: { kind: 'builtin.shell.exec', command: '/bin/sh', args: ['-c', 'exit 3'] } },
        tasks: [
          { id: 'first', uses: 'action:ok', with: { v: 1 } },
          { id: 'broken', uses: 'action:bad', needs: ['first'] },
          { id: 'after', uses: 'action:ok', needs: ['broken'], with: { v: 2 } },
        ],
      }),
    );
    const sourceError = errorDocument(runCli(['run', file, '--db', ws.db, '--output', 'json']), 4);
    const sourceRunId = sourceError.error.runId as string;

    const failure = errorDocument(runCli(['replay', sourceRunId, '--db', ws.db, '--output', 'json'], { env: bareEnv() }), 4);
    const replayRunId = lastRunId();
    expect(failure.error.runId).to.equal(replayRunId);
    expect(failure.error.message).to.equal(sourceError.error.message);
    expect(failure.error.message).to.match(/^task broken failed: /);
    expect(diagnosticWithCode(failure, 'AGENTCTL_E_PROCESS_EXIT').taskId).to.equal('broken');
    expect(failure.diagnostics.map((item: any) => [item.code, item.taskId])).to.deep.equal(sourceError.diagnostics.map((item: any) => [item.code, item.taskId]));
    expect(rows(ws.db, 'SELECT mode, source_run_id, state, error_json FROM runs WHERE id = ?', replayRunId)).to.deep.equal(
      rows(ws.db, `SELECT 'replay' AS mode, id AS source_run_id, state, error_json FROM runs WHERE id = ?`, sourceRunId),
    );
    expect(rows(ws.db, 'SELECT task_id, state, disposition FROM tasks WHERE run_id = ? ORDER BY position', replayRunId)).to.deep.equal([
      { task_id: 'first', state: 'succeeded', disposition: 'recorded' },
      { task_id: 'broken', state: 'failed', disposition: 'recorded' },
      { task_id: 'after', state: 'skipped', disposition: 'recorded' },
    ]);
    expect(effectCount(replayRunId)).to.equal(0);
  });

  it('refuses a paused run with exit 3 (AGENTCTL_E_RUN_NOT_TERMINAL) and writes nothing', () => {
    const file = ws.write(
      'pause.yaml',
      workflow({ policy: { writableRoots: ['out'] }, actions: { save: { kind: 'builtin.write' } }, tasks: [{ id: 'save', uses: 'action:save', with: { path: 'out/x.txt', content: 'x' } }] }),
    );
    run(file, 3);
    const pausedRunId = lastRunId();
    const before = rows(ws.db, 'SELECT COUNT(*) AS n FROM audit_events')[0].n;
    const refusal = errorDocument(runCli(['replay', pausedRunId, '--db', ws.db, '--output', 'json']), 3);
    expect(diagnosticWithCode(refusal, 'AGENTCTL_E_RUN_NOT_TERMINAL').message).to.equal(`run ${pausedRunId} is paused; only a succeeded, failed or cancelled run can be replayed`);
    expect(rows(ws.db, 'SELECT id, state FROM runs')).to.deep.equal([{ id: pausedRunId, state: 'paused' }]);
    expect(rows(ws.db, 'SELECT COUNT(*) AS n FROM audit_events')[0].n).to.equal(before);
  });

  it('a task document or plan of the source that is not JSON: exit 5, AGENTCTL_E_DB_CORRUPT naming task and column, nothing written', () => {
    const file = ws.write('two.yaml', workflow({ actions: { a: { kind: 'builtin.assign' } }, tasks: [{ id: 'a', uses: 'action:a', with: { v: 1 } }, { id: 'b', uses: 'action:a', with: { v: 2 } }] }));
    run(file, 0);
    const sourceRunId = lastRunId();
    const db = new Database(ws.db);
    db.prepare(`UPDATE tasks SET output_json = '{"v":' WHERE run_id = ? AND task_id = 'b'`).run(sourceRunId);
    db.close();
    const before = rows(ws.db, 'SELECT COUNT(*) AS n FROM audit_events')[0].n;
    const refusal = errorDocument(runCli(['replay', sourceRunId, '--db', ws.db, '--output', 'json'], { env: bareEnv() }), 5);
    expect(diagnosticWithCode(refusal, 'AGENTCTL_E_DB_CORRUPT').message).to.match(new RegExp(`^run ${sourceRunId}, task b: output_json is not valid JSON \\(.+\\); the run cannot be replayed$`));
    expect(rows(ws.db, 'SELECT id FROM runs')).to.deep.equal([{ id: sourceRunId }]);
    expect(rows(ws.db, 'SELECT COUNT(*) AS n FROM audit_events')[0].n).to.equal(before);
    // The plan is copied without being parsed, but checked all the same.
    const writer = new Database(ws.db);
    writer.prepare(`UPDATE tasks SET output_json = '{"v":2}' WHERE run_id = ? AND task_id = 'b'`).run(sourceRunId);
    writer.prepare(`UPDATE runs SET plan_json = '{"tasks":[' WHERE id = ?`).run(sourceRunId);
    writer.close();
    const plan = errorDocument(runCli(['replay', sourceRunId, '--db', ws.db, '--output', 'json'], { env: bareEnv() }), 5);
    expect(diagnosticWithCode(plan, 'AGENTCTL_E_DB_CORRUPT').message).to.match(new RegExp(`^run ${sourceRunId}: plan_json is not valid JSON \\(.+\\); the run cannot be replayed$`));
    expect(rows(ws.db, 'SELECT id FROM runs')).to.deep.equal([{ id: sourceRunId }]);
  });

  it('a run that does not exist: exit 2, AGENTCTL_E_RUN_NOT_FOUND', () => {
    run(ws.write('ok.yaml', workflow({ actions: { a: { kind: 'builtin.assign' } }, tasks: [{ id: 'a', uses: 'action:a', with: { v: 1 } }] })), 0);
    const missing = errorDocument(runCli(['replay', 'run_nosuchrun', '--db', ws.db, '--output', 'json']), 2);
    expect(diagnosticWithCode(missing, 'AGENTCTL_E_RUN_NOT_FOUND').message).to.equal('run run_nosuchrun does not exist in this database');
    expect(rows(ws.db, 'SELECT COUNT(*) AS n FROM runs')[0].n).to.equal(1);
  });

  it('inspect shows the replay run with mode replay and its sourceRunId; the human summary names both', () => {
    const file = ws.write('ok.yaml', workflow({ outputs: { v: '${{ tasks.a.output.output.v }}' }, actions: { a: { kind: 'builtin.assign' } }, tasks: [{ id: 'a', uses: 'action:a', with: { v: 7 } }] }));
    run(file, 0);
    const sourceRunId = lastRunId();
    const human = runCli(['replay', sourceRunId, '--db', ws.db]);
    expect(human.status, human.stderr).to.equal(0);
    const replayRunId = lastRunId();
    expect(human.stdout).to.equal(`run ${replayRunId} succeeded: replay of ${sourceRunId}, 1 task recorded, output ${digestOf({ v: 7 })}\n`);
    const view = outcome(runCli(['inspect', replayRunId, '--db', ws.db, '--output', 'json']), 0);
    expect(view.data.run).to.deep.include({ runId: replayRunId, mode: 'replay', sourceRunId, state: 'succeeded', output: { v: 7 } });
    expect(view.data.tasks.map((task: any) => [task.taskId, task.state, task.disposition, task.output])).to.deep.equal([
      ['a', 'succeeded', 'recorded', { status: 'unchanged', changed: false, before: null, after: { v: 7 }, diff: null, output: { v: 7 }, predictability: 'fully_predictable' }],
    ]);
    expect(view.data.effects).to.deep.equal([]);
    expect(view.data.audit.map((event: any) => event.type)).to.deep.equal(['run.started', 'task.succeeded', 'run.replayed', 'run.succeeded']);
  });

  it('a cancelled run replays as cancelled: RunOutcome on stdout, exit 130', () => {
    const file = ws.write(
      'slow.yaml',
      workflow({ policy: { processAllowlist: ['sleep'], approval: 'never' }, actions: { nap: { kind: 'builtin.shell.exec', command: '/bin/sleep', args: ['30'] } }, tasks: [{ id: 'nap', uses: 'action:nap' }] }),
    );
    const cancelled = runCli(['run', file, '--db', ws.db, '--output', 'json', '--timeout-seconds', '0.5']);
    expect(cancelled.status, cancelled.stderr).to.equal(130);
    const sourceRunId = lastRunId();
    const replay = outcome(runCli(['replay', sourceRunId, '--db', ws.db, '--output', 'json'], { env: bareEnv() }), 130);
    expect(replay.ok).to.equal(true);
    expect(replay.data).to.deep.include({ state: 'cancelled', sourceRunId, mode: 'replay', output: {}, outputDigest: digestOf({}), tasks: { nap: 'cancelled' } });
    expect(replay.diagnostics.map((item: any) => item.code)).to.deep.equal(['AGENTCTL_E_CANCELLED']);
    expect(effectCount(replay.data.runId)).to.equal(0);
  });
});
