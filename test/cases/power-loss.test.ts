// A power loss never resends an effect. `requested` is synced before dispatch, `started` is not: after a power loss
// (the operating system losing unsynced writes) the ledger holds the effect as only `requested`, in a run whose
// process is gone. These tests build that exact ledger: the process is killed while its effect runs, and the one
// write that was never synced, the `started` mark with its audit event, is taken out of the file.
import { existsSync, readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { baseEnv, runCli } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome, rows, useWorkspace, workflow } from './helpers.js';

describe('recovery after a power loss: an effect found only requested', () => {
  const state = useWorkspace();
  const ws = () => state.ws;
  const cli = (args: string[]) => runCli([...args, '--db', ws().db, '--output', 'json'], { env: baseEnv() });
  const lines = () => (existsSync(ws().file('lines.txt')) ? readFileSync(ws().file('lines.txt'), 'utf8').split('\n').filter(Boolean) : []);

  /** Runs `action` (which kills agentctl, its parent, once it has done its work) and rolls the ledger back to the last sync. */
  function powerLoss(action: Record<string, unknown>, policy: Record<string, unknown>) {
    const file = ws().write('flow.yaml', workflow({ policy: { ...policy, approval: 'never' }, actions: { act: action }, tasks: [{ id: 'act', uses: 'action:act' }] }, 'power'));
    const killed = cli(['run', file]);
    expect(killed.signal ?? killed.status, killed.stderr).to.be.oneOf(['SIGKILL', 137]);
    const [effect] = rows(ws().db, 'SELECT id, state FROM effects');
    expect(effect.state).to.equal('started');
    const db = new Database(ws().db);
    try {
      db.prepare(`UPDATE effects SET state = 'requested', started_at = NULL, updated_at = requested_at WHERE id = ?`).run(effect.id);
      db.prepare(`DELETE FROM audit_events WHERE effect_id = ? AND type = 'effect.started'`).run(effect.id);
    } finally {
      db.close();
    }
    expect(rows(ws().db, 'SELECT state, started_at, finished_at, result_json, error_json FROM effects')).to.deep.equal([{ state: 'requested', started_at: null, finished_at: null, result_json: null, error_json: null }]);
    expect(rows(ws().db, 'SELECT state, finished_at FROM runs')).to.deep.equal([{ state: 'running', finished_at: null }]);
    return effect.id as string;
  }

  it('a process.exec found requested is in doubt: resume refuses (exit 3) and never resends it; reconciled applied, the run goes on without it', () => {
    const effectId = powerLoss(
      { kind: 'builtin.shell.exec', command: '/bin/sh', args: ['-c', `echo appended >> '${ws().file('lines.txt')}'; kill -9 $PPID`] },
      { processAllowlist: ['sh'] },
    );
    expect(lines()).to.deep.equal(['appended']);
    const listed = outcome(cli(['effects', 'list', rows(ws().db, 'SELECT id FROM runs')[0].id]), 0).data.effects;
    expect(listed.map((effect: any) => [effect.effectId, effect.state, effect.inDoubt])).to.deep.equal([[effectId, 'requested', true]]);

    const runId = rows(ws().db, 'SELECT id FROM runs')[0].id as string;
    const refused = diagnosticWithCode(errorDocument(cli(['resume', runId]), 3), 'AGENTCTL_E_EFFECT_UNRECONCILED');
    expect(refused.message).to.equal(`run ${runId} has effects that may or may not have happened: ${effectId} (process.exec, task act, requested)`);
    expect(lines()).to.deep.equal(['appended']);
    expect(rows(ws().db, 'SELECT state FROM effects')).to.deep.equal([{ state: 'requested' }]);

    const result = ws().write('result.json', JSON.stringify({ exitCode: 0, stdout: '', stderr: '' }));
    outcome(cli(['effects', 'reconcile', effectId, '--status', 'applied', '--reason', 'lines.txt has the line', '--result-file', result]), 0);
    expect(outcome(cli(['resume', runId]), 0).data.state).to.equal('succeeded');
    expect(lines()).to.deep.equal(['appended']);
    expect(rows(ws().db, 'SELECT state FROM effects')).to.deep.equal([{ state: 'uncertain' }]);
    const [uncertain] = rows(ws().db, `SELECT data_json FROM audit_events WHERE effect_id = ? AND type = 'effect.uncertain'`, effectId);
    expect(JSON.parse(uncertain.data_json).reason).to.equal('its process ended after it was recorded requested; a power loss may have lost its started mark');
  });
});
