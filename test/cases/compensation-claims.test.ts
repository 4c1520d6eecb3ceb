// Compensation at most once per applied effect: each source effect is claimed by one compensation run in the
// transaction that creates it, whatever other `compensate` commands do meanwhile, before or after an approval.
import { existsSync, readFileSync } from 'node:fs';
import { expect } from 'chai';
import { baseEnv, parseDocument, runCli, runCliAsync } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome, rows, runCount, useWorkspace, workflow } from './helpers.js';

/** `provision` writes a file and fails after it; its inverse appends a line to `log`, so each dispatch shows. */
function provisioning(log: string, approval: 'always' | 'never'): string {
  return workflow({
    compensation: { approval },
    policy: { writableRoots: ['out'], processAllowlist: ['sh'], approval: 'never' },
    actions: { write: { kind: 'builtin.write' }, assert: { kind: 'builtin.assert' }, undo: { kind: 'builtin.shell.exec', command: '/bin/sh', args: ['-c', `echo undone >> ${log}`] } },
    tasks: [
      { id: 'provision', uses: 'action:write', with: { path: `out/${log}.txt`, content: 'provisioned' }, compensate: { uses: 'action:undo' } },
      { id: 'validate', uses: 'action:assert', needs: ['provision'], with: { that: false, message: 'validation failed' } },
    ],
  }, 'provisioning');
}

// The race is repeated this many times (scripts: `npm run test:compensate-race` runs it 20 times).
const REPEATS = Number(process.env.AGENTCTL_COMPENSATE_RACE_REPEATS ?? 2);
const CONCURRENT = 8;

describe('compensation claims: each applied effect is compensated at most once', () => {
  const state = useWorkspace();
  const ws = () => state.ws;
  const cli = (args: string[], db = ws().db, env = baseEnv({ CI: 'true' })) => runCli([...args, '--db', db, '--output', 'json'], { env });
  const lines = (log: string) => (existsSync(ws().file(log)) ? readFileSync(ws().file(log), 'utf8').split('\n').filter(Boolean).length : 0);
  const failedRun = (log: string, approval: 'always' | 'never', db = ws().db) => {
    const file = ws().write(`${log}.yaml`, provisioning(log, approval));
    const runId = errorDocument(cli(['run', file], db), 4).error.runId as string;
    const [effect] = rows(db, `SELECT id FROM effects WHERE run_id = ? AND task_id = 'provision'`, runId);
    return { runId, effectId: effect.id as string };
  };
  const approveAndResume = (runId: string, decision: 'approve' | 'reject') => {
    const [approval] = outcome(cli(['approvals', 'list', runId]), 0).data;
    outcome(cli(['approvals', decision, approval.approvalId, '--reason', `${decision} the undo`]), 0);
    return cli(['resume', runId]);
  };

  it('a second compensate while the first waits for approval plans nothing, names the claiming run (exit 3), and the inverse runs once', () => {
    const { runId, effectId } = failedRun('undo.log', 'always');
    const first = outcome(cli(['compensate', runId]), 3);
    expect(first.data).to.deep.include({ state: 'paused', mode: 'compensation', sourceRunId: runId });
    const claimer = first.data.runId as string;
    expect(rows(ws().db, 'SELECT source_effect_id, compensation_run_id, compensation_task_id, released_at FROM compensation_claims')).to.deep.equal([
      { source_effect_id: effectId, compensation_run_id: claimer, compensation_task_id: 'compensate-provision', released_at: null },
    ]);

    const second = errorDocument(cli(['compensate', runId]), 3);
    const claimed = diagnosticWithCode(second, 'AGENTCTL_E_COMPENSATION_CLAIMED');
    expect(claimed.message).to.equal(`task provision's effect(s) ${effectId} are claimed by compensation run ${claimer} (paused)`);
    expect(claimed.taskId).to.equal('provision');
    expect(runCount(ws().db)).to.equal(2);
    const plan = outcome(cli(['compensate', runId, '--plan']), 0);
    expect(plan.data.decisions).to.deep.equal([{ taskId: 'provision', disposition: 'claimed', reason: 'claimed_by_run', uses: 'action:undo', effectIds: [effectId], claimedBy: [{ effectId, runId: claimer, runState: 'paused' }] }]);

    expect(outcome(approveAndResume(claimer, 'approve'), 0).data.state).to.equal('succeeded');
    expect(lines('undo.log')).to.equal(1);
    // Done: the claim stays with the run that undid the effect, and the plan says it is compensated.
    const done = outcome(cli(['compensate', runId]), 0);
    expect(done.kind).to.equal('CompensationPlan');
    expect(done.data.decisions[0]).to.deep.include({ disposition: 'compensated', effectIds: [effectId] });
    expect(rows(ws().db, 'SELECT compensation_run_id, released_at FROM compensation_claims')).to.deep.equal([{ compensation_run_id: claimer, released_at: null }]);
    expect(runCount(ws().db)).to.equal(2);
    expect(lines('undo.log')).to.equal(1);
  });

  it('a claim is released when its run ends without having undone the effect: a rejected approval lets the next compensate claim it', () => {
    const { runId, effectId } = failedRun('undo.log', 'always');
    const rejected = outcome(cli(['compensate', runId]), 3).data.runId as string;
    expect(errorDocument(approveAndResume(rejected, 'reject'), 4).diagnostics.map((item: any) => item.code)).to.include('AGENTCTL_E_APPROVAL_REJECTED');
    const [released] = rows(ws().db, 'SELECT compensation_run_id, released_at FROM compensation_claims');
    expect(released.compensation_run_id).to.equal(rejected);
    expect(released.released_at).to.be.a('string');
    expect(lines('undo.log')).to.equal(0);

    const next = outcome(cli(['compensate', runId]), 3).data.runId as string;
    expect(rows(ws().db, 'SELECT compensation_run_id FROM compensation_claims WHERE source_effect_id = ? AND released_at IS NULL', effectId)).to.deep.equal([{ compensation_run_id: next }]);
    expect(outcome(approveAndResume(next, 'approve'), 0).data.state).to.equal('succeeded');
    expect(lines('undo.log')).to.equal(1);
  });

  it('an inverse in doubt keeps its claim until reconciled not-applied; resuming that run after another claimed the effect is refused (exit 3)', () => {
    const text = workflow({
      policy: { writableRoots: ['out'], processAllowlist: ['sleep'], approval: 'never' },
      actions: { write: { kind: 'builtin.write' }, assert: { kind: 'builtin.assert' }, undo: { kind: 'builtin.shell.exec', command: 'sleep', args: ['30'] } },
      tasks: [
        { id: 'provision', uses: 'action:write', with: { path: 'out/resource.txt', content: 'provisioned' }, compensate: { uses: 'action:undo' } },
        { id: 'validate', uses: 'action:assert', needs: ['provision'], with: { that: false } },
      ],
    });
    const runId = errorDocument(cli(['run', ws().write('slow.yaml', text)]), 4).error.runId as string;
    const compensate = () => {
      const result = cli(['compensate', runId, '--timeout-seconds', '2']);
      expect(result.status, result.stderr).to.equal(130);
      return parseDocument(result.stdout).data.runId as string;
    };
    const first = compensate();
    const [inverse] = rows(ws().db, 'SELECT id, state FROM effects WHERE run_id = ?', first);
    expect(inverse.state).to.equal('uncertain');
    // Cancelled, but its inverse may have happened: the claim stays, and a new compensate is blocked by it.
    expect(rows(ws().db, 'SELECT compensation_run_id, released_at FROM compensation_claims')).to.deep.equal([{ compensation_run_id: first, released_at: null }]);
    expect(diagnosticWithCode(errorDocument(cli(['compensate', runId]), 3), 'AGENTCTL_E_COMPENSATION_BLOCKED').message).to.contain(inverse.id);
    outcome(cli(['effects', 'reconcile', inverse.id, '--status', 'not-applied', '--reason', 'the sleep undid nothing']), 0);
    expect(rows(ws().db, 'SELECT released_at IS NOT NULL AS released FROM compensation_claims')).to.deep.equal([{ released: 1 }]);

    const second = compensate();
    const refused = diagnosticWithCode(errorDocument(cli(['resume', first]), 3), 'AGENTCTL_E_COMPENSATION_CLAIMED');
    expect(refused.message).to.contain(`which compensation run ${second} has claimed since`);
    expect(rows(ws().db, 'SELECT state FROM runs WHERE id = ?', first)).to.deep.equal([{ state: 'cancelled' }]);
    expect(rows(ws().db, 'SELECT compensation_run_id FROM compensation_claims WHERE released_at IS NULL')).to.deep.equal([{ compensation_run_id: second }]);
  });

  it(`${CONCURRENT} concurrent compensate commands, ${REPEATS} times: the inverse runs exactly once each time`, async function () {
    this.timeout(REPEATS * 60_000);
    for (let repeat = 0; repeat < REPEATS; repeat += 1) {
      const db = ws().file(`race-${repeat}.db`);
      const log = `undo-${repeat}.log`;
      const { runId } = failedRun(log, 'never', db);
      const results = await Promise.all(Array.from({ length: CONCURRENT }, () => runCliAsync(['compensate', runId, '--db', db, '--output', 'json'], { env: baseEnv(), timeoutMs: 120_000 })));
      const label = `repeat ${repeat}: ${JSON.stringify(results.map((result) => [result.status, result.stdout || result.stderr]))}`;
      expect(lines(log), label).to.equal(1);
      const compensations = rows(db, `SELECT id, state FROM runs WHERE mode = 'compensation'`);
      expect(compensations, label).to.have.length(1);
      expect(compensations[0].state).to.equal('succeeded');
      // One command ran it; each other one was told who has it, or (planning after it ended) that it is compensated.
      for (const result of results) {
        if (result.status === 0 && parseDocument(result.stdout).kind === 'CompensationOutcome') expect(parseDocument(result.stdout).data.runId, label).to.equal(compensations[0].id);
        else if (result.status === 0) expect(parseDocument(result.stdout).data.decisions[0].disposition, label).to.equal('compensated');
        else expect([result.status, parseDocument(result.stderr).diagnostics[0].code], label).to.deep.equal([3, 'AGENTCTL_E_COMPENSATION_CLAIMED']);
      }
      expect(results.filter((result) => result.status === 0 && parseDocument(result.stdout).kind === 'CompensationOutcome'), label).to.have.length(1);
    }
  });
});
