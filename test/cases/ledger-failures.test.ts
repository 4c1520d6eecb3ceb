// When the ledger cannot record an effect's outcome, the run stops with exit 5: the effect stays in doubt (started or
// uncertain), and the task whose effect happened is never reported as failed.
import { existsSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { baseEnv, runCli, startCli } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, finished, outcome, rows, useWorkspace, waitFor, workflow } from './helpers.js';

describe('an effect outcome the ledger cannot record', () => {
  const state = useWorkspace();

  /** `cmd` waits for the file GO, so the test can change the database while the effect runs; `after` needs it. */
  function gatedWorkflow(): void {
    const ready = state.ws.file('READY');
    const go = state.ws.file('GO');
    state.ws.write(
      'wf.yaml',
      workflow({
        policy: { processAllowlist: ['sh'], approval: 'never' },
        actions: {
          cmd: { kind: 'builtin.shell.exec', command: 'sh', args: ['-c', `touch ${ready}; while [ ! -e ${go} ]; do sleep 0.02; done; echo done`] },
          set: { kind: 'builtin.assign' },
        },
        tasks: [
          { id: 'cmd', uses: 'action:cmd' },
          { id: 'after', uses: 'action:set', needs: ['cmd'], with: { v: 1 } },
        ],
      }),
    );
  }

  async function startGated() {
    gatedWorkflow();
    // A short busy timeout keeps the test quick; the default (5 s) behaves the same, only slower.
    const child = startCli(['run', state.ws.file('wf.yaml'), '--db', state.ws.db, '--output', 'json'], { env: baseEnv({ AGENTCTL_DB_BUSY_TIMEOUT_MS: '300' }) });
    const done = finished(child);
    await waitFor('the effect to be started', () => existsSync(state.ws.file('READY')) && rows(state.ws.db, `SELECT id FROM effects WHERE state = 'started'`).length === 1);
    return { child, done };
  }

  function expectOutcomeNotRecorded(document: any): any {
    const found = diagnosticWithCode(document, 'AGENTCTL_E_OUTCOME_NOT_RECORDED');
    expect(found.taskId).to.equal('cmd');
    expect(found.message).to.match(/effect eff_[0-9a-f]{40}/).and.contain('succeeded');
    expect(document.error.runId).to.match(/^run_/);
    expect(document.diagnostics.map((item: any) => item.code)).to.not.include('AGENTCTL_E_RUN_FAILED');
    expect(document.error.message).to.not.contain('task cmd failed');
    return found;
  }

  it('another connection holds the write lock past the busy timeout: exit 5, the effect stays started, the task is not failed', async () => {
    const { child, done } = await startGated();
    const holder = new Database(state.ws.db);
    let runId = '';
    try {
      holder.exec('BEGIN IMMEDIATE');
      writeFileSync(state.ws.file('GO'), '');
      const result = await done;
      const document = errorDocument(result, 5);
      const found = expectOutcomeNotRecorded(document);
      expect(found.message).to.contain('database is locked');
      runId = document.error.runId;
    } finally {
      if (holder.inTransaction) holder.exec('ROLLBACK');
      holder.close();
      child.kill('SIGKILL');
    }
    // Nothing could be written: the ledger shows the effect started and the run running; nobody drives it any more.
    expect(rows(state.ws.db, 'SELECT state FROM effects')).to.deep.equal([{ state: 'started' }]);
    expect(rows(state.ws.db, 'SELECT task_id, state FROM tasks ORDER BY position')).to.deep.equal([
      { task_id: 'cmd', state: 'running' },
      { task_id: 'after', state: 'pending' },
    ]);
    expect(rows(state.ws.db, 'SELECT state FROM runs')).to.deep.equal([{ state: 'running' }]);
    // inspect presents it honestly: a run nobody drives, an effect that may have happened.
    const view = outcome(runCli(['inspect', runId, '--db', state.ws.db, '--output', 'json']), 0).data;
    expect(view.run).to.deep.include({ state: 'running', liveness: 'interrupted' });
    expect(view.effects.map((effect: any) => [effect.state, effect.inDoubt])).to.deep.equal([['started', true]]);
  });

  it('the database refuses the outcome write but accepts others: exit 5, the effect is uncertain, the run is interrupted, not failed', async () => {
    const { child, done } = await startGated();
    const saboteur = new Database(state.ws.db);
    try {
      // A write that fails while the database stays usable, as when a disk fills up and space is freed again.
      saboteur.exec(`CREATE TRIGGER refuse_outcome BEFORE UPDATE OF state ON effects WHEN NEW.state = 'succeeded' BEGIN SELECT RAISE(ABORT, 'simulated write failure'); END`);
    } finally {
      saboteur.close();
    }
    writeFileSync(state.ws.file('GO'), '');
    const result = await done;
    child.kill('SIGKILL');
    const document = errorDocument(result, 5);
    expect(expectOutcomeNotRecorded(document).message).to.contain('simulated write failure');

    const [effect] = rows(state.ws.db, 'SELECT id, state, result_json, error_json FROM effects');
    expect(effect.state).to.equal('uncertain');
    expect(effect.result_json).to.equal(null);
    expect(JSON.parse(effect.error_json)).to.deep.include({ code: 'AGENTCTL_E_OUTCOME_NOT_RECORDED' });
    expect(rows(state.ws.db, 'SELECT task_id, state FROM tasks ORDER BY position')).to.deep.equal([
      { task_id: 'cmd', state: 'running' },
      { task_id: 'after', state: 'pending' },
    ]);
    const [run] = rows(state.ws.db, 'SELECT id, state, lease_owner, finished_at, error_json FROM runs');
    expect(run).to.deep.include({ id: document.error.runId, state: 'running', lease_owner: null, finished_at: null });
    expect(JSON.parse(run.error_json).code).to.equal('AGENTCTL_E_OUTCOME_NOT_RECORDED');
    const trail = rows(state.ws.db, 'SELECT type, effect_id FROM audit_events ORDER BY seq').map((row) => row.type);
    expect(trail.slice(-2)).to.deep.equal(['effect.uncertain', 'run.interrupted']);
    expect(trail).to.not.include('task.failed');
    const view = outcome(runCli(['inspect', run.id, '--db', state.ws.db, '--output', 'json']), 0).data;
    expect(view.run).to.deep.include({ state: 'running', liveness: 'interrupted' });
    expect(view.run.error.code).to.equal('AGENTCTL_E_OUTCOME_NOT_RECORDED');
    expect(view.effects.map((effect: any) => [effect.state, effect.inDoubt])).to.deep.equal([['uncertain', true]]);
  });
});
