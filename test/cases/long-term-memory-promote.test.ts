// builtin.long_term_memory.promote through the real CLI: an entry written in one run is promoted into working memory
// in another and read back by builtin.memory.read and a memory.KEY template; the reference form (a read's value) works
// unchanged; a replay needs no store; a missing or expired entry fails with its code; write sets are checked at compile
// time like a builtin.memory.write's.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { baseEnv, runCli, workspace } from '../support/cli.js';
import { assertNoCanary, diagnosticWithCode, errorDocument, outcome, workflow, type WorkflowSpec } from './helpers.js';

const ACTIONS = {
  write: { kind: 'builtin.long_term_memory.write' },
  read: { kind: 'builtin.long_term_memory.read' },
  promote: { kind: 'builtin.long_term_memory.promote' },
  recall: { kind: 'builtin.memory.read' },
  remember: { kind: 'builtin.memory.write' },
  show: { kind: 'builtin.assign' },
};

type MemorySpec = WorkflowSpec & { memory?: Record<string, unknown> };

/** A workflow of the memory actions on the `notes` namespace, `approval: never`. */
function promoteWorkflow(tasks: Record<string, unknown>[], extra: Partial<MemorySpec> = {}): string {
  return workflow({ policy: { approval: 'never' }, actions: ACTIONS, tasks, memory: { longTerm: { namespace: 'notes' } }, ...extra } as MemorySpec);
}

const SEED = promoteWorkflow([{ id: 'w', uses: 'action:write', with: { key: 'preference', content: { type: 'json', value: { tone: 'concise' }, text: 'concise release notes' } } }]);

/** Promote `preference` into `recalled`, read it back both ways, and output what was read. */
const PROMOTE = promoteWorkflow(
  [
    { id: 'promote', uses: 'action:promote', with: { key: 'recalled', from: 'preference' } },
    { id: 'recall', uses: 'action:recall', needs: ['promote'], with: { key: 'recalled' } },
    { id: 'show', uses: 'action:show', needs: ['promote'], with: { tone: '${{ memory.recalled.tone }}' } },
  ],
  { outputs: { recalled: '${{ tasks.recall.output.value }}', tone: '${{ tasks.show.output.output.tone }}' } },
);

describe('builtin.long_term_memory.promote', function () {
  this.timeout(120_000);
  let ws: ReturnType<typeof workspace>;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  const cli = (...args: string[]) => runCli([...args, '--output', 'json'], { cwd: ws.dir });
  const run = (name: string, text: string, exit = 0) => outcome(cli('run', ws.write(name, text), '--db', ws.db), exit);
  const inspect = (runId: string) => outcome(cli('inspect', runId, '--db', ws.db), 0).data;
  const output = (view: any, id: string) => view.tasks.find((task: any) => task.taskId === id).output;
  const sql = <T>(body: (db: Database.Database) => T): T => {
    const db = new Database(ws.db);
    try {
      return body(db);
    } finally {
      db.close();
    }
  };
  const refused = (text: string, code: string) => {
    const document = errorDocument(cli('check', ws.write('refused.yaml', text)), 2);
    expect(existsSync(ws.db)).to.equal(false);
    return diagnosticWithCode(document, code);
  };

  it('promotes an entry written by an earlier run: one internal_state effect, read back by memory.read and memory.KEY', () => {
    run('seed.yaml', SEED);
    const result = run('promote.yaml', PROMOTE);
    expect(result.data).to.deep.include({ state: 'succeeded', output: { recalled: { tone: 'concise' }, tone: 'concise' } });
    const view = inspect(result.data.runId);
    expect(view.run.workingMemory).to.deep.equal({ recalled: { tone: 'concise' } });
    const promoted = output(view, 'promote');
    expect(promoted).to.deep.include({ status: 'changed', changed: true, before: null, after: { tone: 'concise' }, key: 'recalled' });
    expect(promoted.source).to.include({ namespace: 'notes', key: 'preference', expiresAt: null });
    expect(view.effects.map((effect: any) => [effect.taskId, effect.operation, effect.effectClass, effect.state])).to.deep.equal([['promote', 'long_term_memory.promote', 'internal_state', 'succeeded']]);
    expect(view.checkpoints.find((checkpoint: any) => checkpoint.taskId === 'promote').state).to.deep.equal({ task: 'promote', state: 'succeeded', memoryDelta: { recalled: { tone: 'concise' } } });

    // The same value again: unchanged, before and after equal.
    const again = run('again.yaml', promoteWorkflow([{ id: 'promote', uses: 'action:promote', with: { key: 'recalled', from: 'preference' } }], { memory: { working: { recalled: { tone: 'concise' } }, longTerm: { namespace: 'notes' } } }));
    expect(output(inspect(again.data.runId), 'promote')).to.deep.include({ status: 'unchanged', changed: false, before: { tone: 'concise' }, after: { tone: 'concise' } });
  });

  it('a replay rebuilds the working memory and output with the long-term table emptied; repair --from the promotion reads the store again', () => {
    run('seed.yaml', SEED);
    const source = run('promote.yaml', PROMOTE);

    // The entry changes: a repair from the promotion sees the new value.
    run('change.yaml', promoteWorkflow([{ id: 'w', uses: 'action:write', with: { key: 'preference', content: { type: 'json', value: { tone: 'detailed' }, text: 'detailed notes' } } }]));
    const repaired = outcome(cli('repair', ws.write('promote.yaml', PROMOTE), source.data.runId, '--from', 'promote', '--restart-successful', '--db', ws.db), 0);
    expect(repaired.data.output).to.deep.equal({ recalled: { tone: 'detailed' }, tone: 'detailed' });

    sql((db) => db.exec('DELETE FROM long_term_memory'));
    const replay = outcome(cli('replay', source.data.runId, '--db', ws.db), 0);
    expect(replay.data).to.include({ state: 'succeeded', mode: 'replay' });
    expect(replay.data.output).to.deep.equal({ recalled: { tone: 'concise' }, tone: 'concise' });
    expect(inspect(replay.data.runId).run.workingMemory).to.deep.equal({ recalled: { tone: 'concise' } });
    expect(sql((db) => db.prepare('SELECT COUNT(*) FROM long_term_memory').pluck().get())).to.equal(0);
  });

  it("the reference form promotes a read's value into a templated key declared in memoryWrites", () => {
    run('seed.yaml', SEED);
    const text = promoteWorkflow(
      [
        { id: 'read', uses: 'action:read', with: { key: 'preference' } },
        { id: 'promote', uses: 'action:promote', needs: ['read'], memoryWrites: ['recalled'], with: { key: '${{ inputs.target }}', value: '${{ tasks.read.output.value }}' } },
        { id: 'recall', uses: 'action:recall', needs: ['promote'], with: { key: 'recalled' } },
      ],
      { inputs: { target: 'recalled' }, outputs: { recalled: '${{ tasks.recall.output.value }}' } },
    );
    const plan = outcome(cli('plan', ws.write('reference.yaml', text)), 0).data;
    expect(plan.tasks.promote.memoryWrites).to.deep.equal(['recalled']);
    const result = run('reference.yaml', text);
    expect(result.data.output).to.deep.equal({ recalled: { tone: 'concise' } });
    const view = inspect(result.data.runId);
    expect(output(view, 'promote')).to.deep.equal({ status: 'changed', changed: true, before: null, after: { tone: 'concise' }, key: 'recalled' });
    expect(view.effects.map((effect: any) => [effect.taskId, effect.operation])).to.deep.equal([
      ['read', 'long_term_memory.read'],
      ['promote', 'long_term_memory.promote'],
    ]);
  });

  it('a missing or expired entry fails the task with AGENTCTL_E_MEMORY_ENTRY_NOT_FOUND and writes no working memory', () => {
    const missing = promoteWorkflow([{ id: 'promote', uses: 'action:promote', with: { key: 'recalled', from: 'preference' } }], { memory: { working: { recalled: 'initial' }, longTerm: { namespace: 'notes' } } });
    const failed = errorDocument(cli('run', ws.write('missing.yaml', missing), '--db', ws.db), 4);
    const diagnostic = diagnosticWithCode(failed, 'AGENTCTL_E_MEMORY_ENTRY_NOT_FOUND');
    expect(diagnostic.message).to.contain('long-term memory namespace "notes" has no unexpired entry "preference" to promote');
    const view = inspect(failed.error.runId);
    expect(view.run.workingMemory).to.deep.equal({ recalled: 'initial' });
    expect(view.effects.map((effect: any) => [effect.operation, effect.state])).to.deep.equal([['long_term_memory.promote', 'failed']]);

    run('seed.yaml', SEED);
    sql((db) => db.prepare(`UPDATE long_term_memory SET expires_at = '2000-01-01T00:00:00.000Z' WHERE memory_key = 'preference'`).run());
    const expired = errorDocument(cli('run', ws.write('missing.yaml', missing), '--db', ws.db), 4);
    diagnosticWithCode(expired, 'AGENTCTL_E_MEMORY_ENTRY_NOT_FOUND');
  });

  it('its key is in the write set: overlap with a memory.write at maxConcurrency 2 fails compilation; a templated key needs memoryWrites', () => {
    const tasks = [
      { id: 'promote', uses: 'action:promote', with: { key: 'shared', from: 'preference' } },
      { id: 'remember', uses: 'action:remember', with: { key: 'shared', value: 1 } },
    ];
    const conflict = refused(promoteWorkflow(tasks, { runtime: { maxConcurrency: 2 } }), 'AGENTCTL_E_MEMORY_WRITE_CONFLICT');
    expect(conflict.message).to.equal('tasks promote and remember may run at once (maxConcurrency 2, neither needs the other) and both write working-memory key "shared"');
    outcome(cli('check', ws.write('ordered.yaml', promoteWorkflow([tasks[0]!, { ...tasks[1], needs: ['promote'] }], { runtime: { maxConcurrency: 2 } }))), 0);

    const templated = promoteWorkflow([{ id: 'promote', uses: 'action:promote', with: { key: '${{ inputs.target }}', from: 'preference' } }], { inputs: { target: 'recalled' } });
    expect(refused(templated, 'AGENTCTL_E_MEMORY_WRITES_INVALID').message).to.equal('task promote writes a working-memory key given by a template, and does not declare memoryWrites');
    refused(promoteWorkflow([{ id: 'promote', uses: 'action:promote', with: { key: 'recalled', value: 1, from: 'preference' } }]), 'AGENTCTL_E_SCHEMA');
  });

  it('a rendered key outside memoryWrites fails before any effect is recorded', () => {
    run('seed.yaml', SEED);
    const text = promoteWorkflow([{ id: 'promote', uses: 'action:promote', memoryWrites: ['recalled'], with: { key: '${{ inputs.target }}', from: 'preference' } }], { inputs: { target: 'elsewhere' } });
    const failed = errorDocument(cli('run', ws.write('undeclared.yaml', text), '--db', ws.db), 4);
    diagnosticWithCode(failed, 'AGENTCTL_E_MEMORY_WRITE_UNDECLARED');
    expect(inspect(failed.error.runId).effects).to.deep.equal([]);
  });

  it('under approval: always a promotion waits with nothing written; approved and resumed, it reads the entry as it is then', () => {
    run('seed.yaml', SEED);
    const text = promoteWorkflow([{ id: 'promote', uses: 'action:promote', with: { key: 'recalled', from: 'preference' } }], { policy: { approval: 'always', nonInteractive: 'pause' } });
    const paused = run('approve.yaml', text, 3);
    expect(paused.data.tasks).to.deep.equal({ promote: 'waiting_for_approval' });
    expect(inspect(paused.data.runId).run.workingMemory).to.deep.equal({});
    run('change.yaml', promoteWorkflow([{ id: 'w', uses: 'action:write', with: { key: 'preference', value: 'changed while waiting' } }]));
    const [approval] = outcome(cli('approvals', 'list', paused.data.runId, '--db', ws.db), 0).data;
    outcome(cli('approvals', 'approve', approval.approvalId, '--reason', 'fine', '--db', ws.db), 0);
    expect(outcome(cli('resume', paused.data.runId, '--db', ws.db), 0).data.state).to.equal('succeeded');
    const view = inspect(paused.data.runId);
    expect(view.run.workingMemory).to.deep.equal({ recalled: 'changed while waiting' });
    expect(view.effects.map((effect: any) => [effect.operation, effect.state])).to.deep.equal([['long_term_memory.promote', 'succeeded']]);
  });

  it('a secret value a promotion is given, or names an entry with, is redacted in the database, its WAL, stdout and stderr', () => {
    const canary = randomBytes(16).toString('hex');
    const echo = { kind: 'builtin.shell.exec', command: 'sh', args: ['-c', 'printf %s "$TOKEN"'], env: { TOKEN: { env: 'CANARY' } } };
    const spec = (tasks: Record<string, unknown>[]) =>
      promoteWorkflow([{ id: 'echo', uses: 'action:echo' }, ...tasks], { policy: { approval: 'never', processAllowlist: ['sh'], environmentAllowlist: ['TOKEN'] }, actions: { ...ACTIONS, echo } });
    const secretCli = (...args: string[]) => runCli([...args, '--db', ws.db, '--output', 'json'], { cwd: ws.dir, env: baseEnv({ CANARY: canary }) });

    const given = secretCli('run', ws.write('given.yaml', spec([{ id: 'promote', uses: 'action:promote', needs: ['echo'], with: { key: 'recalled', value: 'token ${{ tasks.echo.output.stdout }}' } }])));
    const run = outcome(given, 0);
    const view = secretCli('inspect', run.data.runId);
    expect(outcome(view, 0).data.run.workingMemory).to.deep.equal({ recalled: 'token [REDACTED]' });

    const named = secretCli('run', ws.write('named.yaml', spec([{ id: 'promote', uses: 'action:promote', needs: ['echo'], with: { key: 'recalled', from: 'k-${{ tasks.echo.output.stdout }}' } }])));
    diagnosticWithCode(errorDocument(named, 4), 'AGENTCTL_E_MEMORY_ENTRY_NOT_FOUND');
    assertNoCanary(canary, ws.dir, given.stdout, given.stderr, view.stdout, view.stderr, named.stdout, named.stderr);
  });
});
