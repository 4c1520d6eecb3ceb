// Compensation end to end: `compensate` declarations compile, `agentctl compensate` plans from the source run's
// effects and runs the declared inverse actions as a linked run, and the source effects record what undid them.
import { readFileSync, existsSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { baseEnv, parseDocument, runCli } from '../support/cli.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../core/store/migrations.js';
import { diagnosticWithCode, errorDocument, outcome, rows, runCount, useWorkspace, workflow, type WorkflowSpec } from './helpers.js';

const write = { kind: 'builtin.write' };
const assert = { kind: 'builtin.assert' };

/** `provision` writes out/resource.txt and declares its inverse; `validate` fails after it (unless `pass`). */
function provisioning(options: { compensation?: Record<string, unknown>; pass?: boolean; approval?: string; extra?: Partial<WorkflowSpec> } = {}): string {
  return workflow({
    inputs: { content: 'provisioned' },
    policy: { writableRoots: ['out'], approval: options.approval ?? 'never' },
    actions: { write, assert },
    tasks: [
      {
        id: 'provision',
        uses: 'action:write',
        with: { path: 'out/resource.txt', content: '${{ inputs.content }}' },
        compensate: { uses: 'action:write', with: { path: '${{ tasks.provision.output.path }}', content: 'compensated' }, retry: { maxAttempts: 2, backoffMs: 10 } },
      },
      { id: 'validate', uses: 'action:assert', needs: ['provision'], with: { that: Boolean(options.pass), message: 'validation failed' } },
    ],
    ...(options.compensation ? { compensation: options.compensation } : {}),
    ...options.extra,
  }, 'provisioning');
}

describe('compensation', () => {
  const state = useWorkspace();
  const ws = () => state.ws;
  const cli = (args: string[], env = baseEnv()) => runCli([...args, '--db', ws().db, '--output', 'json'], { env });
  const content = () => (existsSync(ws().file('out/resource.txt')) ? readFileSync(ws().file('out/resource.txt'), 'utf8') : '');
  const failedRun = (text = provisioning(), env = baseEnv()) => {
    const file = ws().write('flow.yaml', text);
    const document = errorDocument(cli(['run', file], env), 4);
    return { file, runId: document.error.runId as string, document };
  };
  const check = (text: string) => runCli(['check', ws().write('check.yaml', text), '--output', 'json']);

  describe('check', () => {
    it('accepts the reference shapes: spec.compensation, compensate with retry, on a router destination, in foreach, loop and sub-workflow tasks', () => {
      outcome(check(provisioning({ compensation: { onFailure: 'manual', approval: 'policy' } })), 0);
      const text = workflow({
        inputs: { mode: 'failure' },
        policy: { writableRoots: ['out'], approval: 'never' },
        compensation: { onFailure: 'automatic', approval: 'always' },
        actions: { write, assert, assign: { kind: 'builtin.assign' } },
        subworkflows: {
          publish: {
            version: '1.0.0',
            inputSchema: { type: 'object', properties: { name: { type: 'string' } } },
            tasks: [{ id: 'put', uses: 'action:write', with: { path: 'out/${{ inputs.name }}.txt', content: 'published' }, compensate: { uses: 'action:write', with: { path: 'out/${{ inputs.name }}.txt', content: 'withdrawn' } } }],
          },
        },
        tasks: [
          { id: 'decide', uses: 'action:assign', with: { route: 'provision' } },
          { id: 'route', uses: 'router', needs: ['decide'], route: { select: '${{ tasks.decide.output.output.route }}', cases: [{ equals: 'provision', tasks: ['provision'] }], default: ['hold'] } },
          { id: 'provision', uses: 'action:write', needs: ['route'], with: { path: 'out/resource.txt', content: 'provisioned' }, compensate: { uses: 'action:write', with: { path: 'out/resource.txt', content: 'compensated' }, timeoutSeconds: 30 } },
          { id: 'hold', uses: 'action:assign', needs: ['route'], with: { result: 'held' } },
          { id: 'each', uses: 'action:write', foreach: { items: ['a', 'b'] }, with: { path: 'out/${{ vars.item }}.txt', content: 'x' }, compensate: { uses: 'action:write', with: { path: '${{ tasks.each.output.path }}', content: '' } } },
          { id: 'again', uses: 'action:write', loop: { maxIterations: 2, while: '${{ vars.loopIndex < 1 }}' }, with: { path: 'out/loop.txt', content: 'looped' }, compensate: { uses: 'action:write', with: { path: 'out/loop.txt', content: 'unlooped' } } },
          { id: 'publish', uses: 'workflow:publish', with: { name: 'doc' } },
        ],
      }, 'composite');
      outcome(check(text), 0);
    });

    it('refuses an unknown action, an action without effects, a bad template, an unknown field, and compensate on a router (exit 2)', () => {
      const variant = (compensate: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
        workflow({ policy: { writableRoots: ['out'] }, actions: { write, assert }, tasks: [{ id: 'provision', uses: 'action:write', with: { path: 'out/r.txt', content: 'p' }, compensate, ...extra }] });
      const unknown = errorDocument(check(variant({ uses: 'action:unwrite', with: {} })), 2);
      expect(diagnosticWithCode(unknown, 'AGENTCTL_E_UNKNOWN_ACTION').path).to.equal('spec.tasks[0].compensate.uses');
      const pure = errorDocument(check(variant({ uses: 'action:assert', with: { that: true } })), 2);
      expect(diagnosticWithCode(pure, 'AGENTCTL_E_COMPENSATION_INVALID').message).to.contain('pure');
      const template = errorDocument(check(variant({ uses: 'action:write', with: { path: '${{ tasks.nowhere.output.path }}', content: 'c' } })), 2);
      expect(template.diagnostics[0].code).to.match(/^AGENTCTL_E_(TEMPLATE|UNKNOWN)/);
      expect(template.diagnostics[0].path).to.contain('compensate.with.path');
      const field = errorDocument(check(variant({ uses: 'action:write', with: { path: 'out/r.txt', content: 'c' }, rollback: true })), 2);
      expect(diagnosticWithCode(field, 'AGENTCTL_E_UNKNOWN_FIELD').path).to.contain('compensate');
      const input = errorDocument(check(variant({ uses: 'action:write', with: { path: 'out/r.txt' } })), 2);
      expect(input.diagnostics[0].path).to.contain('compensate.with');
      const router = workflow({
        actions: { write, assign: { kind: 'builtin.assign' } },
        tasks: [
          { id: 'route', uses: 'router', route: { select: 'x', cases: [{ equals: 'x', tasks: ['a'] }] }, compensate: { uses: 'action:write', with: { path: 'r', content: 'c' } } },
          { id: 'a', uses: 'action:assign', needs: ['route'], with: {} },
        ],
      });
      expect(diagnosticWithCode(errorDocument(check(router), 2), 'AGENTCTL_E_COMPENSATION_INVALID').path).to.equal('spec.tasks[0].compensate');
    });
  });

  it('plans the applied effect (writing nothing), runs the inverse as a linked run, records the compensated reconciliation, and plans nothing the second time', () => {
    const { runId } = failedRun();
    expect(content()).to.equal('provisioned');
    const before = readFileSync(ws().db);
    const plan = outcome(cli(['compensate', runId, '--plan']), 0);
    expect(readFileSync(ws().db).equals(before)).to.equal(true);
    expect(plan.kind).to.equal('CompensationPlan');
    const [sourceEffect] = rows(ws().db, `SELECT id FROM effects WHERE run_id = ? AND task_id = 'provision'`, runId);
    expect(plan.data).to.deep.include({ sourceRunId: runId, sourceState: 'failed', onFailure: 'manual', approval: 'policy', executable: true, blocks: [] });
    expect(plan.data.decisions).to.deep.equal([{ taskId: 'provision', disposition: 'compensate', reason: 'applied_effect', uses: 'action:write', effectIds: [sourceEffect.id], compensationTaskId: 'compensate-provision' }]);
    const human = runCli(['compensate', runId, '--plan', '--db', ws().db]);
    expect(human.status).to.equal(0);
    expect(human.stdout).to.match(/provision\s+compensate\s+applied_effect\s+action:write/);

    const run = outcome(cli(['compensate', runId, '--reason', 'validation failed']), 0);
    expect(run.data).to.deep.include({ state: 'succeeded', mode: 'compensation', sourceRunId: runId, compensated: ['provision'], tasks: { 'compensate-provision': 'succeeded' } });
    expect(content()).to.equal('compensated');
    const compensationRun = run.data.runId as string;
    expect(rows(ws().db, 'SELECT mode, source_run_id FROM runs WHERE id = ?', compensationRun)).to.deep.equal([{ mode: 'compensation', source_run_id: runId }]);
    const [inverse] = rows(ws().db, `SELECT id, state FROM effects WHERE run_id = ?`, compensationRun);
    expect(inverse.state).to.equal('succeeded');

    // The source keeps its state and effects; its effect records what undid it, linking both runs, tasks and effects.
    const source = outcome(cli(['inspect', runId]), 0).data;
    expect(source.run.state).to.equal('failed');
    expect(source.effects.map((effect: any) => [effect.effectId, effect.state, effect.reconciled])).to.deep.equal([[sourceEffect.id, 'succeeded', 'compensated']]);
    expect(source.effectReconciliations).to.have.length(1);
    expect(source.effectReconciliations[0]).to.deep.include({ effectId: sourceEffect.id, outcome: 'compensated', actor: 'agentctl', compensationRunId: compensationRun, compensationTaskId: 'compensate-provision', compensationEffectId: inverse.id });
    const view = outcome(cli(['inspect', compensationRun]), 0).data;
    expect(view.run).to.deep.include({ mode: 'compensation', sourceRunId: runId });
    expect(view.lineage).to.deep.include({ mode: 'compensation', sourceRunId: runId, roots: ['provision'], reason: 'validation failed' });
    expect(view.audit.map((event: any) => event.type)).to.include('effect.compensated');

    const again = outcome(cli(['compensate', runId, '--plan']), 0);
    expect(again.data.decisions.map((task: any) => [task.taskId, task.disposition])).to.deep.equal([['provision', 'compensated']]);
    const runs = runCount(ws().db);
    outcome(cli(['compensate', runId]), 0);
    expect(runCount(ws().db)).to.equal(runs);

    // Replay of the compensation run rebuilds it from the record: no effect is dispatched or recorded.
    const replay = outcome(cli(['replay', compensationRun]), 0);
    expect(replay.data.state).to.equal('succeeded');
    expect(rows(ws().db, 'SELECT COUNT(*) AS n FROM effects WHERE run_id = ?', replay.data.runId)).to.deep.equal([{ n: 0 }]);

    // A compensation run is completed by compensating its source again, never forked, retried or repaired.
    expect(errorDocument(cli(['fork', compensationRun]), 2).diagnostics[0].help).to.contain(`agentctl compensate ${runId}`);

    // The compensated task is not reusable: a retry blocks on it until it is named in --from.
    const file = ws().file('flow.yaml');
    const retry = outcome(cli(['retry', file, runId, '--failed', '--plan']), 3);
    expect(retry.data.blocks.map((block: any) => [block.block, block.taskId])).to.deep.equal([['compensated_effect', 'provision']]);
    const fresh = outcome(cli(['retry', file, runId, '--from', 'provision', '--restart-successful', '--plan']), 0);
    expect(fresh.data.tasks.map((task: any) => task.disposition)).to.deep.equal(['execute', 'execute']);
  });

  it('a failed inverse does not stop the others: the run ends failed, and compensate again plans only what is left', () => {
    const text = workflow({
      policy: { writableRoots: ['out'], approval: 'never' },
      actions: { write, assert },
      tasks: [
        { id: 'first', uses: 'action:write', with: { path: 'out/first.txt', content: 'made' }, compensate: { uses: 'action:write', with: { path: 'out/first.txt', content: 'unmade' } } },
        // Its inverse writes outside writableRoots: policy denies it.
        { id: 'second', uses: 'action:write', needs: ['first'], with: { path: 'out/second.txt', content: 'made' }, compensate: { uses: 'action:write', with: { path: 'elsewhere/second.txt', content: 'unmade' } } },
        { id: 'fail', uses: 'action:assert', needs: ['second'], with: { that: false } },
      ],
    });
    const { runId } = failedRun(text);
    const failed = errorDocument(cli(['compensate', runId]), 4);
    const compensationRun = failed.error.runId as string;
    expect(rows(ws().db, 'SELECT task_id, state FROM tasks WHERE run_id = ? ORDER BY position', compensationRun)).to.deep.equal([
      { task_id: 'compensate-second', state: 'failed' },
      { task_id: 'compensate-first', state: 'succeeded' },
    ]);
    expect(readFileSync(ws().file('out/first.txt'), 'utf8')).to.equal('unmade');
    const plan = outcome(cli(['compensate', runId, '--plan']), 0);
    expect(plan.data.decisions.map((task: any) => [task.taskId, task.disposition])).to.deep.equal([['second', 'compensate'], ['first', 'compensated']]);
  });

  it('the declaration is part of the task\'s definition: a repair with a changed compensate does not reuse the task', () => {
    const { file, runId } = failedRun();
    writeFileSync(file, provisioning().replace('content: compensated', 'content: withdrawn'));
    const plan = outcome(cli(['repair', file, runId, '--from', 'validate', '--plan']), 3);
    expect(plan.data.blocks.map((block: any) => [block.block, block.taskId])).to.deep.equal([['definition_fingerprint_mismatch', 'provision']]);
  });

  it('--task selects declared tasks; an unknown task and a task without compensate are refused (exit 2)', () => {
    const { runId } = failedRun();
    expect(diagnosticWithCode(errorDocument(cli(['compensate', runId, '--task', 'nope']), 2), 'AGENTCTL_E_UNKNOWN_TASK').message).to.contain('nope');
    expect(diagnosticWithCode(errorDocument(cli(['compensate', runId, '--task', 'validate']), 2), 'AGENTCTL_E_COMPENSATION_NOT_DECLARED').help).to.contain('provision');
    expect(outcome(cli(['compensate', runId, '--task', 'provision', '--plan']), 0).data.decisions).to.have.length(1);
    expect(errorDocument(cli(['compensate', 'run_missing']), 2).diagnostics[0].code).to.equal('AGENTCTL_E_RUN_NOT_FOUND');
  });

  it('an uncertain source effect blocks its task (exit 3, naming the effect and how to reconcile) until it is reconciled; a cancelled run is never compensated automatically', () => {
    const text = workflow({
      compensation: { onFailure: 'automatic' },
      policy: { processAllowlist: ['sleep', 'true'], approval: 'never' },
      actions: { wait: { kind: 'builtin.shell.exec', command: 'sleep', args: ['30'] }, undo: { kind: 'builtin.shell.exec', command: 'true' } },
      tasks: [{ id: 'wait', uses: 'action:wait', compensate: { uses: 'action:undo' } }],
    });
    const file = ws().write('slow.yaml', text);
    const cancelled = cli(['run', file, '--timeout-seconds', '2']);
    expect(cancelled.status, cancelled.stderr).to.equal(130);
    const runId = parseDocument(cancelled.stdout).data.runId as string;
    const [uncertain] = rows(ws().db, `SELECT id, state FROM effects WHERE run_id = ?`, runId);
    expect(uncertain.state).to.equal('uncertain');
    expect(runCount(ws().db)).to.equal(1);
    const plan = outcome(cli(['compensate', runId, '--plan']), 3);
    expect(plan.data.executable).to.equal(false);
    expect(plan.data.decisions[0]).to.deep.include({ taskId: 'wait', disposition: 'blocked', effectIds: [uncertain.id] });
    const refused = errorDocument(cli(['compensate', runId]), 3);
    const block = diagnosticWithCode(refused, 'AGENTCTL_E_COMPENSATION_BLOCKED');
    expect(block.message).to.contain(uncertain.id);
    expect(block.help).to.contain(`agentctl effects reconcile ${uncertain.id}`);
    expect(runCount(ws().db)).to.equal(1);
    outcome(cli(['effects', 'reconcile', uncertain.id, '--status', 'not-applied', '--reason', 'the sleep changed nothing']), 0);
    expect(outcome(cli(['compensate', runId, '--plan']), 0).data.decisions[0]).to.deep.include({ disposition: 'nothing_applied', reason: 'reconciled_not_applied' });
  });

  it('refuses a source run that has not ended (exit 3)', () => {
    const file = ws().write('flow.yaml', provisioning({ approval: 'mutations' }));
    const paused = outcome(cli(['run', file], baseEnv({ CI: 'true' })), 3);
    expect(paused.data.state).to.equal('paused');
    const refused = errorDocument(cli(['compensate', paused.data.runId]), 3);
    expect(refused.diagnostics[0].code).to.equal('AGENTCTL_E_RUN_NOT_TERMINAL');
    expect(refused.diagnostics[0].message).to.contain('paused');
  });

  it('onFailure: automatic compensates a failed run right away and reports both runs; a succeeded run is left alone', () => {
    const { runId, document } = failedRun(provisioning({ compensation: { onFailure: 'automatic' } }));
    expect(document.error.compensation).to.deep.include({ state: 'succeeded', tasks: { 'compensate-provision': 'succeeded' } });
    expect(rows(ws().db, 'SELECT mode, source_run_id FROM runs WHERE id = ?', document.error.compensation.runId)).to.deep.equal([{ mode: 'compensation', source_run_id: runId }]);
    expect(content()).to.equal('compensated');
    const human = runCli(['run', ws().write('again.yaml', provisioning({ compensation: { onFailure: 'automatic' }, extra: { inputs: { content: 'second' } } })), '--db', ws().db], { env: baseEnv() });
    expect(human.status).to.equal(4);
    expect(human.stderr).to.match(/compensation: run run_\S+ succeeded/);
    const runs = runCount(ws().db);
    outcome(cli(['run', ws().write('ok.yaml', provisioning({ compensation: { onFailure: 'automatic' }, pass: true }))]), 0);
    expect(runCount(ws().db)).to.equal(runs + 1);
  });

  it('approval: always pauses the compensation run for approval; it is resumed like any run', () => {
    const { runId } = failedRun(provisioning({ compensation: { approval: 'always' } }));
    const paused = outcome(cli(['compensate', runId], baseEnv({ CI: 'true' })), 3);
    expect(paused.data).to.deep.include({ state: 'paused', mode: 'compensation', sourceRunId: runId });
    expect(content()).to.equal('provisioned');
    const [approval] = outcome(cli(['approvals', 'list', paused.data.runId]), 0).data;
    outcome(cli(['approvals', 'approve', approval.approvalId, '--reason', 'undo it']), 0);
    const resumed = outcome(cli(['resume', paused.data.runId]), 0);
    expect(resumed.data.state).to.equal('succeeded');
    expect(content()).to.equal('compensated');
    expect(outcome(cli(['inspect', runId]), 0).data.effects[0].reconciled).to.equal('compensated');
  });

  it('sub-workflow tasks and foreach children carry the declaration: each is compensated, latest first, in its own scope', () => {
    const text = workflow({
      policy: { writableRoots: ['out'], approval: 'never' },
      actions: { write, assert },
      subworkflows: {
        publish: {
          version: '1.0.0',
          inputSchema: { type: 'object', properties: { name: { type: 'string' } } },
          tasks: [
            { id: 'put', uses: 'action:write', with: { path: 'out/${{ inputs.name }}.txt', content: 'published' }, compensate: { uses: 'action:write', with: { path: '${{ tasks.put.output.path }}', content: 'withdrawn ${{ inputs.name }}' } } },
            {
              id: 'each',
              uses: 'action:write',
              needs: ['put'],
              foreach: { items: ['a', 'b'] },
              with: { path: 'out/${{ vars.item }}.txt', content: 'made' },
              compensate: { uses: 'action:write', with: { path: '${{ tasks.each.output.path }}', content: 'unmade ${{ vars.item }} after ${{ tasks.put.output.path }}' } },
            },
          ],
        },
      },
      tasks: [
        { id: 'publish', uses: 'workflow:publish', with: { name: 'doc' } },
        { id: 'fail', uses: 'action:assert', needs: ['publish'], with: { that: false } },
      ],
    });
    const { runId } = failedRun(text);
    const plan = outcome(cli(['compensate', runId, '--plan']), 0);
    const order = plan.data.decisions.map((task: any) => task.taskId);
    expect(order).to.have.length(3);
    expect(order[0]).to.match(/^publish--each--0001-/);
    expect(order[1]).to.match(/^publish--each--0000-/);
    expect(order[2]).to.equal('publish--put');
    expect(outcome(cli(['compensate', runId]), 0).data.state).to.equal('succeeded');
    expect(readFileSync(ws().file('out/a.txt'), 'utf8')).to.equal('unmade a after out/doc.txt');
    expect(readFileSync(ws().file('out/b.txt'), 'utf8')).to.equal('unmade b after out/doc.txt');
    expect(readFileSync(ws().file('out/doc.txt'), 'utf8')).to.equal('withdrawn doc');
  });

  it('a database of schema version 5 is migrated: its runs are kept and can be compensated', () => {
    const { runId } = failedRun();
    // The same rows in a database created at version 5, as an earlier agentctl left it.
    const old = ws().file('state/old.db');
    const db = new Database(old);
    for (const migration of MIGRATIONS.filter((entry) => entry.version <= 5)) db.exec(migration.sql);
    db.pragma('user_version = 5');
    db.exec(`ATTACH '${ws().db}' AS current`);
    // The columns the version-5 tables have (later versions added some).
    const columns = (table: string) => (db.prepare(`SELECT name FROM pragma_table_info('${table}', 'main')`).all() as { name: string }[]).map((column) => column.name).join(', ');
    for (const table of ['runs', 'tasks', 'effects', 'audit_events', 'checkpoints', 'artifacts', 'task_artifacts']) db.exec(`INSERT INTO main.${table} SELECT ${columns(table)} FROM current.${table}`);
    db.exec('DETACH current');
    db.close();
    const run = outcome(runCli(['compensate', runId, '--db', old, '--output', 'json']), 0);
    expect(run.data.state).to.equal('succeeded');
    expect(content()).to.equal('compensated');
    const migrated = new Database(old, { readonly: true });
    try {
      expect(migrated.pragma('user_version', { simple: true })).to.equal(SCHEMA_VERSION);
      expect(migrated.pragma('foreign_key_check')).to.deep.equal([]);
      expect(migrated.prepare('SELECT id, mode FROM runs ORDER BY created_at').all()).to.deep.equal([{ id: runId, mode: 'execute' }, { id: run.data.runId, mode: 'compensation' }]);
      expect(migrated.prepare('SELECT outcome, compensation_run_id FROM reconciliations').all()).to.deep.equal([{ outcome: 'compensated', compensation_run_id: run.data.runId }]);
    } finally {
      migrated.close();
    }
  });
});
