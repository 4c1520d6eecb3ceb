// Run budgets (spec.runtime.budgets): static counts fail check, reservations in the ledger refuse what would go over a
// limit before anything is dispatched, reconciliation frees what was not used, and the wall clock spans pauses.
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { baseEnv, runCli, workspace } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome, rows, runCount, workflow } from './helpers.js';

type Workspace = ReturnType<typeof workspace>;

/** A shell action that waits, prints `hi` and leaves a marker file: the marker proves the process ran. */
const marking = (marker: string, limit: number, wait = '0') => ({
  kind: 'builtin.shell.exec',
  command: '/bin/sh',
  args: ['-c', `sleep ${wait}; echo hi; : > ${marker}`],
  combinedOutputLimitBytes: limit,
});

const POLICY = { processAllowlist: ['sh'], writableRoots: ['.'], approval: 'never' };

describe('run budgets', () => {
  let ws: Workspace;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());
  const cli = (...args: string[]) => runCli([...args, ...(args[0] === 'check' ? [] : ['--db', ws.db]), '--output', 'json'], { cwd: ws.dir, env: baseEnv({ USER: 'dana' }) });
  const auditOf = (type: string) => rows(ws.db, 'SELECT task_id, data_json FROM audit_events WHERE type = ? ORDER BY seq', type).map((row) => ({ taskId: row.task_id, data: JSON.parse(row.data_json) }));

  describe('static checks and bad values', () => {
    const assign = (count: number) => Array.from({ length: count }, (_, index) => ({ id: `t${index}`, uses: 'action:set' }));
    const write = (runtime: Record<string, unknown>, count = 1) => ws.write('wf.yaml', workflow({ runtime, actions: { set: { kind: 'builtin.assign' } }, tasks: assign(count) }));

    it('maxTasks 3 on a 4-task workflow: check exits 2 with AGENTCTL_E_BUDGET_STATIC at the path, and run creates no run', () => {
      write({ budgets: { maxTasks: 3 } }, 4);
      const checked = errorDocument(cli('check', ws.file('wf.yaml')), 2);
      const found = diagnosticWithCode(checked, 'AGENTCTL_E_BUDGET_STATIC');
      expect(found.path).to.equal('spec.runtime.budgets.maxTasks');
      expect(found.message).to.contain('4 tasks').and.to.contain('(3)');
      expect(found.line).to.be.a('number');
      diagnosticWithCode(errorDocument(cli('run', ws.file('wf.yaml')), 2), 'AGENTCTL_E_BUDGET_STATIC');
      expect(runCount(ws.db)).to.equal(0);
      // Exact equality is allowed.
      write({ budgets: { maxTasks: 4 } }, 4);
      expect(outcome(cli('run', ws.file('wf.yaml')), 0).data.state).to.equal('succeeded');
    });

    for (const [label, budgets, path] of [
      ['zero', { maxTasks: 0 }, 'spec.runtime.budgets.maxTasks'],
      ['negative', { maxProcessOutputBytes: -5 }, 'spec.runtime.budgets.maxProcessOutputBytes'],
      ['not an integer', { maxWallTimeSeconds: 1.5 }, 'spec.runtime.budgets.maxWallTimeSeconds'],
      ['a string', { maxArtifactBytes: '10' }, 'spec.runtime.budgets.maxArtifactBytes'],
    ] as const) {
      it(`a budget that is ${label}: exit 2 with the path`, () => {
        write({ budgets });
        const document = errorDocument(cli('check', ws.file('wf.yaml')), 2);
        expect(document.diagnostics.map((item: any) => [item.code, item.path])).to.deep.equal([['AGENTCTL_E_SCHEMA', path]]);
      });
    }

    it('an unknown budget field: exit 2, AGENTCTL_E_UNKNOWN_FIELD with its path', () => {
      write({ budgets: { maxTask: 3 } });
      const document = errorDocument(cli('check', ws.file('wf.yaml')), 2);
      expect(diagnosticWithCode(document, 'AGENTCTL_E_UNKNOWN_FIELD').path).to.equal('spec.runtime.budgets.maxTask');
    });

    it('maxCostMicrousd needs a pricing table: exit 2 without one, accepted with one; the table shape is checked', () => {
      write({ budgets: { maxCostMicrousd: 50000 } });
      const missing = errorDocument(cli('check', ws.file('wf.yaml')), 2);
      expect(diagnosticWithCode(missing, 'AGENTCTL_E_BUDGET_PRICING_MISSING').path).to.equal('spec.runtime.budgets.maxCostMicrousd');
      const rates = { inputMicrousdPerMillionTokens: 1000000, outputMicrousdPerMillionTokens: 8000000, cacheReadMicrousdPerMillionTokens: 100000 };
      write({ budgets: { maxCostMicrousd: 50000, maxTotalTokens: 22000, maxProviderRequests: 4 }, pricing: { version: 'internal-2026-07', models: { 'openai/gpt-5': rates } } });
      expect(outcome(cli('check', ws.file('wf.yaml')), 0).kind).to.equal('CheckResult');
      write({ budgets: { maxCostMicrousd: 50000 }, pricing: { version: 'v1', models: { 'openai/gpt-5': { inputMicrousdPerMillionTokens: 1 } } } });
      expect(diagnosticWithCode(errorDocument(cli('check', ws.file('wf.yaml')), 2), 'AGENTCTL_E_SCHEMA').path).to.equal('spec.runtime.pricing.models.openai/gpt-5.outputMicrousdPerMillionTokens');
      write({ pricing: { version: 'v1', models: { gpt: { inputMicrousdPerMillionTokens: 1, outputMicrousdPerMillionTokens: -1 } } } });
      const paths = errorDocument(cli('check', ws.file('wf.yaml')), 2).diagnostics.map((item: any) => item.path);
      expect(paths).to.include('spec.runtime.pricing.models.gpt');
    });
  });

  describe('process output', () => {
    it('two concurrent process actions over the budget: one dispatches, the other is refused before anything ran; exit 4', () => {
      ws.write(
        'wf.yaml',
        workflow({
          policy: POLICY,
          runtime: { maxConcurrency: 2, budgets: { maxProcessOutputBytes: 1500 } },
          actions: { a: marking('marker-a', 1000, '0.5'), b: marking('marker-b', 1000, '0.5') },
          tasks: [
            { id: 'a', uses: 'action:a' },
            { id: 'b', uses: 'action:b' },
          ],
        }),
      );
      const failed = errorDocument(cli('run', ws.file('wf.yaml')), 4);
      const refusal = diagnosticWithCode(failed, 'AGENTCTL_E_BUDGET_EXCEEDED');
      expect(refusal.path).to.equal('spec.runtime.budgets.maxProcessOutputBytes');
      const refused = refusal.taskId as 'a' | 'b';
      const granted = refused === 'a' ? 'b' : 'a';
      // Nothing of the refused task ran; the granted one, already launched, finished.
      expect(existsSync(ws.file(`marker-${refused}`))).to.equal(false);
      expect(existsSync(ws.file(`marker-${granted}`))).to.equal(true);
      expect(auditOf('budget.exceeded')).to.deep.equal([
        { taskId: refused, data: { dimension: 'processOutputBytes', field: 'maxProcessOutputBytes', limit: 1500, used: 0, reserved: 1000, requested: 1000, message: refusal.message } },
      ]);
      // The refused effect was never recorded; the granted one was, and succeeded.
      expect(rows(ws.db, 'SELECT task_id, state FROM effects')).to.deep.equal([{ task_id: granted, state: 'succeeded' }]);
      expect(rows(ws.db, 'SELECT task_id, state FROM tasks ORDER BY task_id')).to.deep.equal(
        [
          { task_id: granted, state: 'succeeded' },
          { task_id: refused, state: 'failed' },
        ].sort((x, y) => x.task_id.localeCompare(y.task_id)),
      );
      expect(rows(ws.db, 'SELECT state, error_json FROM runs').map((row) => [row.state, JSON.parse(row.error_json).code])).to.deep.equal([['failed', 'AGENTCTL_E_BUDGET_EXCEEDED']]);

      // inspect shows the limits, the reconciled use (3 bytes: "hi\n"), no active reservation, and the first refusal.
      const inspected = outcome(cli('inspect', failed.error.runId), 0).data.budget;
      expect(inspected).to.deep.include({ limits: { maxProcessOutputBytes: 1500 }, pricingVersion: null, reservations: [] });
      expect(inspected.usage).to.deep.equal({ processOutputBytes: { used: 3, reserved: 0, limit: 1500 } });
      expect(inspected.exceeded).to.deep.include({ dimension: 'processOutputBytes', taskId: refused, requested: 1000 });
      const human = runCli(['inspect', failed.error.runId, '--db', ws.db], { cwd: ws.dir, env: baseEnv() });
      expect(human.stdout).to.contain('budget: processOutputBytes 3 used + 0 reserved of 1500').and.to.contain('budget exceeded: maxProcessOutputBytes');
    });

    it('one after the other, actual use is small: reconciliation frees the unused reservation, so both run', () => {
      ws.write(
        'wf.yaml',
        workflow({
          policy: POLICY,
          runtime: { maxConcurrency: 1, budgets: { maxProcessOutputBytes: 1500 } },
          actions: { a: marking('marker-a', 1000), b: marking('marker-b', 1000) },
          tasks: [
            { id: 'a', uses: 'action:a' },
            { id: 'b', uses: 'action:b' },
          ],
        }),
      );
      const done = outcome(cli('run', ws.file('wf.yaml')), 0);
      expect(done.data.tasks).to.deep.equal({ a: 'succeeded', b: 'succeeded' });
      expect(existsSync(ws.file('marker-a')) && existsSync(ws.file('marker-b'))).to.equal(true);
      const ledger = rows(ws.db, 'SELECT reservation_key, dimension, reserved, used, state FROM budget_reservations ORDER BY created_at, reservation_key');
      const effects = rows(ws.db, 'SELECT id FROM effects ORDER BY requested_at').map((row) => row.id);
      expect(ledger).to.deep.equal(effects.map((id) => ({ reservation_key: id, dimension: 'processOutputBytes', reserved: 1000, used: 3, state: 'consumed' })));
      expect(outcome(cli('inspect', done.data.runId), 0).data.budget.usage).to.deep.equal({ processOutputBytes: { used: 6, reserved: 0, limit: 1500 } });
      expect(auditOf('budget.exceeded')).to.deep.equal([]);
    });
  });

  describe('approved effects', () => {
    it('an effect approved while paused reserves when resume dispatches it, once, and settles to what it wrote', () => {
      ws.write(
        'wf.yaml',
        workflow({
          policy: { processAllowlist: ['sh'], writableRoots: ['.'] },
          runtime: { budgets: { maxProcessOutputBytes: 1000 } },
          actions: { touch: marking('marker', 1000) },
          tasks: [{ id: 'touch', uses: 'action:touch' }],
        }),
      );
      const runId = outcome(cli('run', ws.file('wf.yaml')), 3).data.runId as string;
      // Waiting for an operator holds nothing.
      expect(rows(ws.db, 'SELECT COUNT(*) AS n FROM budget_reservations')).to.deep.equal([{ n: 0 }]);
      const [approval] = outcome(cli('approvals', 'list', runId), 0).data;
      outcome(cli('approvals', 'approve', approval.approvalId, '--reason', 'ok'), 0);
      expect(outcome(cli('resume', runId), 0).data.state).to.equal('succeeded');
      expect(existsSync(ws.file('marker'))).to.equal(true);
      const effect = rows(ws.db, 'SELECT id FROM effects')[0].id as string;
      expect(rows(ws.db, 'SELECT reservation_key, dimension, reserved, used, state FROM budget_reservations')).to.deep.equal([{ reservation_key: effect, dimension: 'processOutputBytes', reserved: 1000, used: 3, state: 'consumed' }]);
    });
  });

  describe('wall time', () => {
    it('counts the time a run spent paused: approved after the budget passed, resume fails (exit 4) and never dispatches', async () => {
      ws.write(
        'wf.yaml',
        workflow({
          // The default approval mode pauses for a process in a non-interactive run.
          policy: { processAllowlist: ['sh'], writableRoots: ['.'] },
          runtime: { budgets: { maxWallTimeSeconds: 2 } },
          actions: { touch: marking('marker', 1000) },
          tasks: [{ id: 'touch', uses: 'action:touch' }],
        }),
      );
      const paused = outcome(cli('run', ws.file('wf.yaml')), 3);
      const runId = paused.data.runId as string;
      const [approval] = outcome(cli('approvals', 'list', runId), 0).data;
      await sleep(2500);
      outcome(cli('approvals', 'approve', approval.approvalId, '--reason', 'late but fine'), 0);
      const failed = errorDocument(cli('resume', runId), 4);
      expect(failed.error.runId).to.equal(runId);
      expect(diagnosticWithCode(failed, 'AGENTCTL_E_BUDGET_EXCEEDED').path).to.equal('spec.runtime.budgets.maxWallTimeSeconds');
      expect(existsSync(ws.file('marker'))).to.equal(false);
      expect(rows(ws.db, 'SELECT state FROM effects')).to.deep.equal([{ state: 'cancelled' }]);
      expect(rows(ws.db, 'SELECT state FROM tasks')).to.deep.equal([{ state: 'cancelled' }]);
      expect(rows(ws.db, `SELECT COUNT(*) AS n FROM audit_events WHERE type = 'effect.started'`)).to.deep.equal([{ n: 0 }]);
      const [exceeded] = auditOf('budget.exceeded');
      expect(exceeded!.data).to.deep.include({ dimension: 'wallTimeSeconds', field: 'maxWallTimeSeconds', limit: 2 });
      expect(exceeded!.data.used).to.be.at.least(2);
      const budget = outcome(cli('inspect', runId), 0).data.budget;
      expect(budget.exceeded).to.deep.include({ dimension: 'wallTimeSeconds' });
      expect(budget.usage.wallTimeSeconds.limit).to.equal(2);
    });

    it('expiry during a run cancels in-flight work and fails the run (exit 4, not 130)', () => {
      ws.write(
        'wf.yaml',
        workflow({
          policy: POLICY,
          runtime: { budgets: { maxWallTimeSeconds: 1 } },
          actions: { slow: marking('marker', 1000, '30') },
          tasks: [{ id: 'slow', uses: 'action:slow' }],
        }),
      );
      const started = Date.now();
      const failed = errorDocument(cli('run', ws.file('wf.yaml')), 4);
      expect(Date.now() - started).to.be.below(15_000);
      expect(diagnosticWithCode(failed, 'AGENTCTL_E_BUDGET_EXCEEDED').path).to.equal('spec.runtime.budgets.maxWallTimeSeconds');
      expect(existsSync(ws.file('marker'))).to.equal(false);
      expect(rows(ws.db, 'SELECT state FROM runs')).to.deep.equal([{ state: 'failed' }]);
      // A process cancelled after dispatch keeps the usual rule: it may have done part of its work.
      expect(rows(ws.db, 'SELECT state FROM effects')).to.deep.equal([{ state: 'uncertain' }]);
      expect(auditOf('budget.exceeded').map((event) => event.data.dimension)).to.deep.equal(['wallTimeSeconds']);
    });
  });

  describe('artifact bytes', () => {
    const writing = (content: string, budget: number) =>
      ws.write(
        'wf.yaml',
        workflow({
          policy: { writableRoots: ['out'], approval: 'never' },
          runtime: { budgets: { maxArtifactBytes: budget } },
          actions: { save: { kind: 'builtin.write' } },
          tasks: [{ id: 'save', uses: 'action:save', with: { path: 'out/report.txt', content }, retry: { maxAttempts: 3 } }],
        }),
      );

    it('a file bigger than the budget is refused before it is written: budget.exceeded, exit 4, no retry', () => {
      writing('x'.repeat(2000), 1000);
      const failed = errorDocument(cli('run', ws.file('wf.yaml')), 4);
      const refusal = diagnosticWithCode(failed, 'AGENTCTL_E_BUDGET_EXCEEDED');
      expect(refusal.taskId).to.equal('save');
      expect(existsSync(ws.file('out/report.txt'))).to.equal(false);
      expect(auditOf('budget.exceeded').map((event) => [event.taskId, event.data.dimension, event.data.requested, event.data.limit])).to.deep.equal([['save', 'artifactBytes', 2000, 1000]]);
      expect(rows(ws.db, 'SELECT attempt, state FROM tasks')).to.deep.equal([{ attempt: 1, state: 'failed' }]);
      expect(rows(ws.db, 'SELECT state FROM effects')).to.deep.equal([{ state: 'failed' }]);
      expect(rows(ws.db, 'SELECT COUNT(*) AS n FROM artifacts')).to.deep.equal([{ n: 0 }]);
    });

    it('a file within the budget is ingested and its size counted', () => {
      writing('x'.repeat(600), 1000);
      const done = outcome(cli('run', ws.file('wf.yaml')), 0);
      expect(outcome(cli('inspect', done.data.runId), 0).data.budget.usage).to.deep.equal({ artifactBytes: { used: 600, reserved: 0, limit: 1000 } });
    });
  });
});
