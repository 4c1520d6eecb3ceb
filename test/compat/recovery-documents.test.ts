// The recovery verbs as the reference's scripts drive them: `cancel`, `retry|repair --plan` and their outcomes,
// `compensate --plan` and its outcome, and `--workspace` on resume, retry and repair. Every document is read through
// `outcome`/`errorDocument`, so each is also checked against its kind's schema. Real CLI, real files, real database.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { expect } from 'chai';
import { baseEnv, runCli, startCli } from '../support/cli.js';
import { errorDocument, finished, liveProcessesWith, outcome, rows, uniqueSleep, useWorkspace, waitFor, workflow } from '../cases/helpers.js';

/** Three tasks in a chain; `first` and `third` append a line to lines.txt; `second` runs `check` (fails by default). */
function chain(check = '/bin/false', args: string[] = []): string {
  const append = { kind: 'builtin.shell.exec', command: '/bin/sh', args: ['-c', 'echo "$0" >> lines.txt'] };
  return workflow(
    {
      policy: { processAllowlist: ['sh', 'false', 'true', 'test'], approval: 'never' },
      actions: { append, check: { kind: 'builtin.shell.exec', command: check, args } },
      tasks: [
        { id: 'first', uses: 'action:append', with: { args: ['first'] } },
        { id: 'second', uses: 'action:check', needs: ['first'] },
        { id: 'third', uses: 'action:append', needs: ['second'], with: { args: ['third'] } },
      ],
    },
    'chain',
  );
}

describe('compat: run, recovery and cancellation documents', () => {
  const state = useWorkspace();
  const ws = () => state.ws;
  const cli = (...args: string[]) => runCli([...args, '--db', ws().db, '--output', 'json'], { cwd: ws().dir, env: baseEnv() });
  const failedRun = (text = chain()) => {
    const file = ws().write('flow.yaml', text);
    const failed = errorDocument(cli('run', file), 4);
    return { file, runId: failed.error.runId as string };
  };

  describe('schema --kind', () => {
    // The fields a script written against the reference reads: each is required by the published schema.
    const REFERENCE_FIELDS: Record<string, string[]> = {
      RunOutcome: ['runId', 'traceId', 'state', 'output'],
      Cancellation: ['runId', 'requested'],
      RetryPlan: ['apiVersion', 'compatible', 'sourceRunId', 'workflowDigest', 'failedOnly', 'retryRoots', 'restartSuccessful', 'reusedTasks', 'rerunTasks', 'blockedReuse', 'freshEffectSummary', 'approvalSummary', 'estimatedProviderTasks', 'warnings', 'tasks'],
      RepairPlan: ['apiVersion', 'compatible', 'sourceRunId', 'sourceWorkflowDigest', 'targetWorkflowDigest', 'repairRoots', 'restartSuccessful', 'reusedTasks', 'rerunTasks', 'newTasks', 'removedTasks', 'changedTasks', 'blockedReuse', 'freshEffectSummary', 'approvalSummary', 'estimatedProviderTasks', 'warnings', 'tasks'],
      RetryOutcome: ['runId', 'sourceRunId', 'traceId', 'state', 'failedOnly', 'retryRoots', 'reusedTasks', 'executedTasks', 'artifacts', 'output'],
      RepairOutcome: ['runId', 'sourceRunId', 'traceId', 'state', 'reusedTasks', 'executedTasks', 'artifacts', 'output'],
      CompensationPlan: ['apiVersion', 'sourceRunId', 'executable', 'complete', 'automatic', 'selectedTasks', 'tasks', 'blocked', 'alreadyCompensatedEffects'],
      CompensationOutcome: ['runId', 'sourceRunId', 'traceId', 'state', 'compensatedTasks', 'failedTasks', 'blocked'],
    };
    for (const [kind, fields] of Object.entries(REFERENCE_FIELDS)) {
      it(`${kind} requires the reference's fields and allows more`, () => {
        const schema = outcome(runCli(['schema', '--kind', kind, '--output', 'json']), 0).data;
        const data = schema.properties.data;
        expect([...data.required].sort()).to.include.members(fields);
        expect(data.additionalProperties).to.deep.equal({});
      });
    }
  });

  describe('cancel', () => {
    it('a run driven by another process stops at its next task boundary with exit 130; the task running then finishes', async () => {
      const duration = uniqueSleep(2);
      const file = ws().write(
        'slow.yaml',
        workflow({
          policy: { processAllowlist: ['sleep'], approval: 'never' },
          actions: { wait: { kind: 'builtin.shell.exec', command: 'sleep', args: [duration] }, set: { kind: 'builtin.assign' } },
          tasks: [
            { id: 'wait', uses: 'action:wait' },
            { id: 'after', uses: 'action:set', needs: ['wait'], with: { v: 1 } },
          ],
        }),
      );
      const child = startCli(['run', file, '--db', ws().db, '--output', 'json'], { cwd: ws().dir });
      const done = finished(child);
      try {
        await waitFor('the sleep to start', () => liveProcessesWith(duration).length === 1 && rows(ws().db, `SELECT id FROM runs`)[0]);
        const runId = rows(ws().db, 'SELECT id FROM runs')[0].id as string;
        const requested = outcome(cli('cancel', runId), 0);
        expect(requested.kind).to.equal('Cancellation');
        expect(requested.data).to.deep.equal({ runId, requested: true, state: 'running', previousState: 'running' });
        // The request is durable before the command returns; the run is still driven.
        expect(rows(ws().db, `SELECT type FROM audit_events WHERE run_id = ? AND type = 'run.cancel_requested'`, runId)).to.have.length(1);
        const result = await done;
        const stopped = outcome(result, 130);
        expect(stopped.kind).to.equal('RunOutcome');
        expect(stopped.data).to.deep.include({ runId, state: 'cancelled', output: {}, tasks: { wait: 'succeeded', after: 'cancelled' } });
        expect(stopped.diagnostics.map((item: any) => item.code)).to.deep.equal(['AGENTCTL_E_CANCELLED']);
        expect(rows(ws().db, 'SELECT state FROM runs')).to.deep.equal([{ state: 'cancelled' }]);
        // The effect under way was not cut short: it completed, so nothing is in doubt.
        expect(rows(ws().db, 'SELECT task_id, state FROM effects ORDER BY requested_at')).to.deep.equal([{ task_id: 'wait', state: 'succeeded' }]);
        expect(JSON.parse(rows(ws().db, 'SELECT error_json FROM runs')[0].error_json).message).to.contain('requested with agentctl cancel');
      } finally {
        child.kill('SIGKILL');
        state.leftovers.push(...liveProcessesWith(duration).map((entry) => entry.pid));
      }
    });

    it('an interrupted run (its driver killed) becomes cancelled at once; its started effect is left uncertain', async () => {
      const duration = uniqueSleep(3);
      const file = ws().write('slow.yaml', workflow({ policy: { processAllowlist: ['sleep'], approval: 'never' }, actions: { wait: { kind: 'builtin.shell.exec', command: 'sleep', args: [duration] } }, tasks: [{ id: 'wait', uses: 'action:wait' }] }));
      const child = startCli(['run', file, '--db', ws().db, '--output', 'json'], { cwd: ws().dir });
      const done = finished(child);
      try {
        await waitFor('the started effect', () => rows(ws().db, `SELECT id FROM effects WHERE state = 'started'`).length === 1);
        child.kill('SIGKILL');
        await done;
      } finally {
        state.leftovers.push(...liveProcessesWith(duration).map((entry) => entry.pid));
      }
      const runId = rows(ws().db, 'SELECT id FROM runs')[0].id as string;
      const cancelled = outcome(cli('cancel', runId), 0);
      expect(cancelled.data).to.deep.equal({ runId, requested: true, state: 'cancelled', previousState: 'running' });
      expect(rows(ws().db, 'SELECT state FROM runs')).to.deep.equal([{ state: 'cancelled' }]);
      expect(rows(ws().db, 'SELECT task_id, state FROM tasks')).to.deep.equal([{ task_id: 'wait', state: 'cancelled' }]);
      // The killed process may have done its work: the effect is in doubt, and a resume will ask for its reconciliation.
      expect(rows(ws().db, 'SELECT state FROM effects')).to.deep.equal([{ state: 'uncertain' }]);
    });

    it('a paused run with no driver becomes cancelled at once, its approval cancelled; a second cancel is refused with exit 5', () => {
      // The default approval policy pauses a process task in a non-interactive run.
      const file = ws().write('wf.yaml', workflow({ policy: { processAllowlist: ['true'] }, actions: { ok: { kind: 'builtin.shell.exec', command: 'true' } }, tasks: [{ id: 'ok', uses: 'action:ok' }] }));
      const paused = outcome(cli('run', file), 3);
      expect(paused.data.state).to.equal('paused');
      const runId = paused.data.runId as string;
      const cancelled = outcome(cli('cancel', runId), 0);
      expect(cancelled.data).to.deep.equal({ runId, requested: true, state: 'cancelled', previousState: 'paused' });
      expect(rows(ws().db, 'SELECT state, finished_at IS NOT NULL AS finished FROM runs')).to.deep.equal([{ state: 'cancelled', finished: 1 }]);
      expect(rows(ws().db, 'SELECT task_id, state FROM tasks')).to.deep.equal([{ task_id: 'ok', state: 'cancelled' }]);
      expect(rows(ws().db, 'SELECT state FROM approvals')).to.deep.equal([{ state: 'cancelled' }]);
      expect(rows(ws().db, 'SELECT state FROM effects')).to.deep.equal([{ state: 'cancelled' }]);
      const trail = rows(ws().db, 'SELECT type FROM audit_events WHERE run_id = ? ORDER BY seq', runId).map((row) => row.type);
      expect(trail.slice(trail.indexOf('run.cancel_requested'))).to.deep.equal(['run.cancel_requested', 'task.cancelled', 'effect.cancelled', 'approval.cancelled', 'run.cancelled']);

      const again = errorDocument(cli('cancel', runId), 5);
      expect(again.diagnostics[0].code).to.equal('AGENTCTL_E_RUN_ENDED');
      expect(again.error.message).to.equal(`run ${runId} already ended cancelled; there is nothing to cancel`);
      expect(errorDocument(cli('cancel', 'no-such-run'), 2).diagnostics[0].code).to.equal('AGENTCTL_E_RUN_NOT_FOUND');
    });
  });

  describe('retry and repair', () => {
    it('retry --plan prints a RetryPlan; retry prints a RetryOutcome with the reused and executed tasks', () => {
      // `second` fails until the file `ok` exists: the same workflow succeeds when retried.
      const { file, runId } = failedRun(chain('/bin/sh', ['-c', 'test -f ok']));
      const plan = outcome(cli('retry', file, runId, '--failed', '--plan'), 0);
      expect(plan.kind).to.equal('RetryPlan');
      expect(plan.data).to.deep.include({
        apiVersion: 'agentctl.dev/retry-plan/v1',
        compatible: true,
        sourceRunId: runId,
        failedOnly: true,
        retryRoots: ['second'],
        restartSuccessful: false,
        reusedTasks: ['first'],
        rerunTasks: ['second', 'third'],
        blockedReuse: [],
        approvalSummary: [],
        estimatedProviderTasks: 0,
        warnings: [],
      });
      expect(plan.data.workflowDigest).to.match(/^[0-9a-f]{64}$/);
      expect(plan.data.freshEffectSummary).to.deep.equal({ providerTasks: 0, actionTasks: 2, declaredEffects: 2, uncertainSourceEffects: 0 });
      expect(plan.data.tasks.map((task: any) => [task.taskId, task.disposition, task.sourceState])).to.deep.equal([
        ['first', 'reuse', 'succeeded'],
        ['second', 'execute', 'failed'],
        ['third', 'execute', 'skipped'],
      ]);
      expect(plan.data.tasks[0].sourceFingerprint).to.equal(plan.data.tasks[0].targetFingerprint);

      writeFileSync(ws().file('ok'), '');
      const retried = outcome(cli('retry', file, runId, '--failed'), 0);
      expect(retried.kind).to.equal('RetryOutcome');
      expect(retried.data).to.deep.include({ sourceRunId: runId, state: 'succeeded', output: {}, failedOnly: true, retryRoots: ['second'], reusedTasks: ['first'], executedTasks: ['second', 'third'], artifacts: [] });
      expect(retried.data.runId).to.not.equal(runId);
      expect(retried.data.traceId).to.match(/^[0-9a-f]{32}$/);
      expect(readFileSync(ws().file('lines.txt'), 'utf8')).to.equal('first\nthird\n');
    });

    it('repair --plan prints a RepairPlan with changed and blocked tasks; repair prints a RepairOutcome', () => {
      const { file, runId } = failedRun();
      writeFileSync(file, chain('/bin/true'));
      const plan = outcome(cli('repair', file, runId, '--from', 'second', '--plan'), 0);
      expect(plan.kind).to.equal('RepairPlan');
      expect(plan.data).to.deep.include({
        apiVersion: 'agentctl.dev/repair-plan/v1',
        compatible: true,
        sourceRunId: runId,
        repairRoots: ['second'],
        reusedTasks: ['first'],
        rerunTasks: ['second', 'third'],
        newTasks: [],
        removedTasks: [],
        changedTasks: ['second'],
        blockedReuse: [],
      });
      expect(plan.data.sourceWorkflowDigest).to.not.equal(plan.data.targetWorkflowDigest);

      // Changing `first` too, without repairing from it, blocks its reuse (exit 3) with agentctl's rule name.
      writeFileSync(file, chain('/bin/true').replace('echo "$0"', 'echo "$0" "$0"'));
      const blocked = outcome(cli('repair', file, runId, '--from', 'second', '--plan'), 3);
      expect(blocked.data.compatible).to.equal(false);
      expect(blocked.data.blockedReuse).to.have.length(1);
      expect(blocked.data.blockedReuse[0]).to.deep.include({ taskId: 'first', rule: 'definition_fingerprint_mismatch', suggestedRepairRoots: ['first'], fullForkRequired: false });
      expect(blocked.data.blockedReuse[0].sourceFingerprint).to.not.equal(blocked.data.blockedReuse[0].targetFingerprint);

      writeFileSync(file, chain('/bin/true'));
      const repaired = outcome(cli('repair', file, runId, '--from', 'second'), 0);
      expect(repaired.kind).to.equal('RepairOutcome');
      expect(repaired.data).to.deep.include({ sourceRunId: runId, state: 'succeeded', output: {}, reusedTasks: ['first'], executedTasks: ['second', 'third'], artifacts: [] });
      expect(repaired.data.runId).to.not.equal(runId);
      expect(readFileSync(ws().file('lines.txt'), 'utf8')).to.equal('first\nthird\n');
    });

    it('retry and fork --workspace DIR run the new run in DIR; the source keeps its own', () => {
      const { file, runId } = failedRun();
      const other = ws().file('elsewhere');
      mkdirSync(other);
      errorDocument(cli('retry', file, runId, '--failed', '--workspace', other), 4);
      const [derived] = rows(ws().db, 'SELECT workspace FROM runs WHERE source_run_id = ?', runId);
      expect(derived.workspace).to.equal(other);
      expect(rows(ws().db, 'SELECT workspace FROM runs WHERE id = ?', runId)).to.deep.equal([{ workspace: ws().dir }]);
      expect(errorDocument(cli('repair', file, runId, '--from', 'second', '--workspace', ws().file('missing')), 2).diagnostics[0].code).to.equal('AGENTCTL_E_USAGE');
      // fork takes it too, as the reference's fork does.
      errorDocument(cli('fork', runId, '--workspace', other), 4);
      expect(rows(ws().db, "SELECT workspace FROM runs WHERE source_run_id = ? AND mode = 'fork'", runId)).to.deep.equal([{ workspace: other }]);
      expect(errorDocument(cli('fork', runId, '--workspace', ws().file('missing')), 2).diagnostics[0].code).to.equal('AGENTCTL_E_USAGE');
    });
  });

  describe('resume --workspace', () => {
    it('continues the run in the folder --workspace names, recorded with a run.workspace_moved event; a missing folder is exit 2 and nothing changes', () => {
      const file = ws().write('wf.yaml', workflow({ policy: { processAllowlist: ['true'] }, actions: { ok: { kind: 'builtin.shell.exec', command: 'true' } }, tasks: [{ id: 'ok', uses: 'action:ok' }] }));
      const runId = outcome(cli('run', file), 3).data.runId as string;
      const refused = errorDocument(cli('resume', runId, '--workspace', ws().file('missing')), 2);
      expect(refused.diagnostics[0].code).to.equal('AGENTCTL_E_USAGE');
      expect(rows(ws().db, 'SELECT state, workspace FROM runs')).to.deep.equal([{ state: 'paused', workspace: ws().dir }]);
      // Another existing folder (a later CI job's checkout): the run continues there (and pauses again on its approval).
      const other = ws().file('other');
      mkdirSync(other);
      const resumed = outcome(cli('resume', runId, '--workspace', other), 3);
      expect(resumed.data).to.deep.include({ runId, state: 'paused' });
      expect(rows(ws().db, 'SELECT workspace FROM runs')).to.deep.equal([{ workspace: other }]);
      const moved = rows(ws().db, "SELECT data_json FROM audit_events WHERE type = 'run.workspace_moved'").map((row) => JSON.parse(row.data_json));
      expect(moved).to.deep.equal([{ from: ws().dir, to: other }]);
      // The same folder again: nothing more is recorded.
      outcome(cli('resume', runId, '--workspace', other), 3);
      expect(rows(ws().db, "SELECT count(*) AS n FROM audit_events WHERE type = 'run.workspace_moved'")).to.deep.equal([{ n: 1 }]);
    });
  });

  describe('compensate', () => {
    const provision = () =>
      workflow(
        {
          policy: { writableRoots: ['out'], approval: 'never' },
          actions: { write: { kind: 'builtin.write' }, assert: { kind: 'builtin.assert' } },
          tasks: [
            { id: 'provision', uses: 'action:write', with: { path: 'out/resource.txt', content: 'provisioned' }, compensate: { uses: 'action:write', with: { path: 'out/resource.txt', content: 'compensated' } } },
            { id: 'validate', uses: 'action:assert', needs: ['provision'], with: { that: false, message: 'invalid' } },
          ],
        },
        'provision',
      );

    it('compensate --plan prints a CompensationPlan; compensate prints a CompensationOutcome naming the compensated task', () => {
      const file = ws().write('provision.yaml', provision());
      const runId = errorDocument(cli('run', file), 4).error.runId as string;
      const plan = outcome(cli('compensate', runId, '--plan'), 0);
      expect(plan.kind).to.equal('CompensationPlan');
      const [effect] = rows(ws().db, `SELECT id FROM effects WHERE run_id = ? AND task_id = 'provision'`, runId);
      expect(plan.data).to.deep.include({
        apiVersion: 'agentctl.dev/compensation-plan/v1',
        sourceRunId: runId,
        executable: true,
        complete: true,
        automatic: false,
        selectedTasks: ['provision'],
        blocked: [],
        alreadyCompensatedEffects: [],
      });
      expect(plan.data.tasks).to.deep.equal([{ sourceTaskId: 'provision', compensationTaskId: 'compensate-provision', action: 'write', sourceEffectIds: [effect.id], uses: 'action:write' }]);

      const done = outcome(cli('compensate', runId), 0);
      expect(done.kind).to.equal('CompensationOutcome');
      expect(done.data).to.deep.include({ sourceRunId: runId, state: 'succeeded', compensatedTasks: ['provision'], failedTasks: [], blocked: [] });
      expect(done.data.runId).to.not.equal(runId);
      expect(readFileSync(ws().file('out/resource.txt'), 'utf8')).to.equal('compensated');

      // Compensated already: nothing left to run, and the plan says which effect was compensated.
      const again = outcome(cli('compensate', runId, '--plan'), 0);
      expect(again.data).to.deep.include({ executable: false, complete: false, tasks: [], alreadyCompensatedEffects: [effect.id] });
      expect(existsSync(ws().file('out'))).to.equal(true);
    });
  });
});
