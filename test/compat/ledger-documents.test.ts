// The documents that read what a run recorded, as the reference implementation prints them (RunInspection,
// EffectList, EffectInspection, EffectReconciliation, ApprovalList, ApprovalResolution, the legacy-upgrade pair),
// driven through the real CLI with the reference's own spellings (`effects --db PATH list RUN --task T`, ...).
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { stringify } from 'yaml';
import { READ_TOOL } from '../support/agents.js';
import { baseEnv, runCli, startCli, workspace } from '../support/cli.js';
import { appendLine, diagnosticWithCode, errorDocument, finished, interruptedAtSecondTask, outcome, rows, waitFor, workflow } from '../cases/helpers.js';

type Workspace = ReturnType<typeof workspace>;

const SECRET = 'token-Lq83hZt0w';

/** A task that appends its line to out.txt through /bin/sh. */
const append = appendLine;

const REFERENCE_INSPECTION_KEYS = ['run', 'tasks', 'effects', 'effectReconciliations', 'approvals', 'checkpoints', 'providerSessions', 'streamEvents', 'protocolSessions', 'protocolCalls', 'toolCalls', 'artifacts', 'audit', 'traces'];

describe('compat: the ledger documents', () => {
  let ws: Workspace;
  beforeEach(() => {
    ws = workspace();
  });
  afterEach(() => ws.cleanup());
  /** The reference puts --db before the subcommand (`effects --db PATH list RUN`): so do these calls. */
  const cli = (...args: string[]) => runCli([...args, '--output', 'json'], { cwd: ws.dir, env: baseEnv({ COMPAT_TOKEN: SECRET, USER: 'dana' }) });

  /** A run paused for the approval of one process effect (the default policy asks for every process). */
  function paused(): { runId: string; effectId: string } {
    ws.write(
      'wf.yaml',
      workflow({
        policy: { processAllowlist: ['sh'], writableRoots: ['.'], environmentAllowlist: ['TOKEN'] },
        actions: { one: { ...append('one'), env: { TOKEN: { env: 'COMPAT_TOKEN' } } } },
        tasks: [{ id: 'one', uses: 'action:one' }],
      }),
    );
    const runId = outcome(cli('run', ws.file('wf.yaml'), '--db', ws.db), 3).data.runId as string;
    return { runId, effectId: rows(ws.db, 'SELECT id FROM effects')[0].id as string };
  }

  it('approvals list: data is the array of pending approvals in the ApprovalRequest shape; approve prints {approvalId, status}', () => {
    const { runId, effectId } = paused();
    const traceId = rows(ws.db, 'SELECT trace_id FROM runs')[0].trace_id;
    const listed = outcome(cli('approvals', '--db', ws.db, 'list', runId), 0);
    expect(listed.kind).to.equal('ApprovalList');
    expect(listed.data).to.be.an('array').with.length(1);
    const [approval] = listed.data;
    expect(approval).to.deep.include({ runId, effectId, taskId: 'one', agent: null, tool: 'process.exec', capability: 'process.exec', expectedEffect: 'process_execution', traceId, status: 'pending' });
    expect(approval.approvalId).to.match(/^apr_[0-9a-f]{24}$/);
    expect(approval.redactedInput.env.TOKEN.secret).to.deep.equal({ env: 'COMPAT_TOKEN' });
    expect(JSON.stringify(listed)).to.not.contain(SECRET);

    const resolved = outcome(cli('approvals', '--db', ws.db, 'approve', approval.approvalId, '--actor', 'lee', '--reason', 'reviewed'), 0);
    expect(resolved.kind).to.equal('ApprovalResolution');
    expect(resolved.data).to.deep.include({ approvalId: approval.approvalId, status: 'approved', actor: 'lee', decisionReason: 'reviewed' });
    // Decided: no longer listed, unless --all (agentctl's) asks for every approval.
    expect(outcome(cli('approvals', 'list', runId, '--db', ws.db), 0).data).to.deep.equal([]);
    const all = outcome(cli('approvals', 'list', runId, '--all', '--db', ws.db), 0).data;
    expect(all.map((item: any) => [item.approvalId, item.status])).to.deep.equal([[approval.approvalId, 'approved']]);
  });

  it('a requested effect of a paused run is not in doubt: inspect, effects list and reconcile agree with resume', () => {
    const { runId, effectId } = paused();
    const approvalId = rows(ws.db, 'SELECT id FROM approvals')[0].id as string;
    outcome(cli('approvals', 'approve', approvalId, '--reason', 'ok', '--db', ws.db), 0);
    // The ledger of a paused run holding an approved effect released to `requested` (as resume releases it) and never
    // dispatched: a paused run ended on its own terms, so nothing of it may have happened.
    const db = new Database(ws.db);
    try {
      db.prepare(`UPDATE effects SET state = 'requested' WHERE id = ?`).run(effectId);
    } finally {
      db.close();
    }
    expect(rows(ws.db, 'SELECT e.state AS effect, e.effect_class, e.idempotency, r.state AS run FROM effects e JOIN runs r ON r.id = e.run_id')).to.deep.equal([
      { effect: 'requested', effect_class: 'process_execution', idempotency: 'unknown', run: 'paused' },
    ]);
    const inspected = outcome(cli('inspect', runId, '--db', ws.db), 0).data.effects[0];
    expect([inspected.effectId, inspected.state, inspected.inDoubt]).to.deep.equal([effectId, 'requested', false]);
    expect(outcome(cli('effects', '--db', ws.db, 'list', runId), 0).data.effects[0].inDoubt).to.equal(false);
    const refused = errorDocument(cli('effects', '--db', ws.db, 'reconcile', effectId, '--status', 'not-applied', '--reason', 'x'), 2);
    diagnosticWithCode(refused, 'AGENTCTL_E_RECONCILIATION_REFUSED');
    // And resume, which never counted it in doubt, dispatches it once.
    expect(outcome(cli('resume', runId, '--db', ws.db), 0).data.state).to.equal('succeeded');
    expect(rows(ws.db, 'SELECT state FROM effects')).to.deep.equal([{ state: 'succeeded' }]);
  });

  it('inspect prints every key of the reference, each effect with its request and result, and fills what the ledger records', () => {
    ws.write('fixture/note.txt', 'NOTE_MARKER\n');
    const spec = {
      providers: { fake: { kind: 'fake' } },
      policy: { approval: 'never' },
      tools: { read_note: READ_TOOL },
      agents: { a: { provider: 'fake', model: 'scripted', instructions: 'Answer.', tools: ['read_note'], maxTurns: 2, maxToolCalls: 1, providerOptions: { toolInput: { path: 'fixture/note.txt' }, finalText: 'done' } } },
      tasks: [{ id: 'ask', uses: 'agent:a', with: { prompt: 'read it' } }],
    };
    ws.write('wf.yaml', stringify({ apiVersion: 'agentctl.dev/v1', kind: 'Workflow', metadata: { name: 'agents' }, spec }));
    const runId = outcome(cli('run', ws.file('wf.yaml'), '--db', ws.db), 0).data.runId as string;
    const view = outcome(cli('inspect', runId, '--db', ws.db), 0);
    expect(view.kind).to.equal('RunInspection');
    expect(view.data).to.include.all.keys(...REFERENCE_INSPECTION_KEYS);
    const { run, tasks, effects, toolCalls, providerSessions, checkpoints } = view.data;
    expect(run).to.deep.include({ runId, state: 'succeeded', mode: 'execute', workflowName: 'agents', workflowSchemaVersion: 'agentctl.dev/v1', parentRunId: null, repairRoots: [], retryRoots: [], retryFailedOnly: false, cancellationRequested: false });
    expect(run.workflow.metadata).to.deep.equal({ name: 'agents' });
    expect(run.planDigest).to.match(/^[0-9a-f]{64}$/);
    expect(tasks.map((task: any) => [task.runId, task.taskId, task.position, task.state, task.error, task.disposition])).to.deep.equal([[runId, 'ask', 0, 'succeeded', null, 'executed']]);

    expect(effects.map((effect: any) => [effect.request.operation, effect.request.effectClass, effect.status, effect.confirmed, effect.error])).to.deep.equal([
      ['model.request', 'model', 'succeeded', true, null],
      ['tool.call', 'observe', 'succeeded', true, null],
      ['model.request', 'model', 'succeeded', true, null],
    ]);
    const call = effects[1];
    expect(call.request).to.deep.include({ id: call.effectId, runId, taskId: 'ask', attempt: 1, ordinal: call.ordinal, idempotencyKey: call.effectId, inputDigest: call.inputDigest, traceId: run.traceId });
    expect(call.result.content).to.equal('NOTE_MARKER\n');
    expect(call.completedAt).to.equal(call.finishedAt);

    expect(toolCalls).to.deep.equal([
      { callId: 'fake-call-1', taskId: 'ask', effectId: call.effectId, toolId: 'read_note', inputDigest: call.inputDigest, outputDigest: toolCalls[0].outputDigest, status: 'succeeded', createdAt: call.requestedAt, completedAt: call.completedAt },
    ]);
    expect(toolCalls[0].outputDigest).to.match(/^[0-9a-f]{64}$/);
    expect(providerSessions.map((session: any) => [session.taskId, session.provider, session.formatVersion, session.continuation.turns.length])).to.deep.equal([['ask', 'fake', 1, 2]]);
    expect(checkpoints.length).to.be.greaterThan(0);
    expect(checkpoints[0]).to.include.all.keys('sequence', 'formatVersion', 'state', 'checksum', 'createdAt');
    expect(view.data.streamEvents).to.deep.equal([]);
    expect(view.data.protocolCalls).to.deep.equal([]);
    expect(view.data.traces).to.deep.equal([]);
  });

  it('effects list --task, inspect and reconcile take the reference flags; records carry evidence, schema, authorization and supersession', async () => {
    const runId = (await interruptedAtSecondTask(ws)).data.runId as string;
    const [a, b] = ['a', 'b'].map((task) => rows(ws.db, 'SELECT id FROM effects WHERE task_id = ?', task)[0].id as string);

    const listed = outcome(cli('effects', '--db', ws.db, 'list', runId, '--task', 'b'), 0);
    expect(listed.data).to.deep.include({ runId, taskId: 'b', reconciliations: [] });
    expect(listed.data.effects.map((effect: any) => [effect.request.id, effect.status, effect.inDoubt])).to.deep.equal([[b, 'uncertain', true]]);
    expect(outcome(cli('effects', '--db', ws.db, 'list', runId), 0).data.taskId).to.equal(null);

    ws.write('evidence.json', JSON.stringify({ ticket: 'OPS-7', lookup: 'found line b' }));
    ws.write('result.json', JSON.stringify({ exitCode: 0 }));
    ws.write('schema.json', JSON.stringify({ type: 'object', required: ['exitCode'] }));
    ws.write('wrong.json', JSON.stringify({ type: 'object', required: ['stdout'] }));
    const reconcile = (...flags: string[]) => cli('effects', '--db', ws.db, 'reconcile', b, '--actor', 'ops', '--reason', 'checked out.txt', ...flags);
    // A result that does not match its schema is refused before anything is recorded.
    diagnosticWithCode(errorDocument(reconcile('--status', 'applied', '--result-file', 'result.json', '--result-schema-file', 'wrong.json'), 2), 'AGENTCTL_E_RECONCILIATION_REFUSED');
    expect(rows(ws.db, 'SELECT COUNT(*) AS n FROM reconciliations')).to.deep.equal([{ n: 0 }]);

    const applied = outcome(reconcile('--status', 'applied', '--evidence-file', 'evidence.json', '--result-file', 'result.json', '--result-schema-file', 'schema.json', '--approved'), 0);
    expect(applied.kind).to.equal('EffectReconciliation');
    expect(applied.data).to.deep.include({
      effectId: b,
      runId,
      formatVersion: 1,
      status: 'applied',
      actor: 'ops',
      reason: 'checked out.txt',
      evidence: { ticket: 'OPS-7', lookup: 'found line b' },
      result: { exitCode: 0 },
      resultSchema: { type: 'object', required: ['exitCode'] },
      authorization: { kind: 'operator', actor: 'ops', explicitApproval: true },
      compensationEffectId: null,
      supersedesId: null,
    });
    expect(applied.data.effect).to.deep.include({ effectId: b, reconciled: 'applied', inDoubt: false, confirmed: true });

    // --compensation-effect: another effect of the same run that happened (a), never the effect itself.
    diagnosticWithCode(errorDocument(reconcile('--status', 'compensated', '--compensation-effect', b), 2), 'AGENTCTL_E_RECONCILIATION_REFUSED');
    const compensated = outcome(reconcile('--status', 'compensated', '--compensation-effect', a), 0).data;
    expect(compensated).to.deep.include({ status: 'compensated', compensationEffectId: a, supersedesId: applied.data.reconciliationId, evidence: { kind: 'operator_statement', statement: 'checked out.txt' } });

    const inspected = outcome(cli('effects', '--db', ws.db, 'inspect', b), 0);
    expect(inspected.kind).to.equal('EffectInspection');
    expect(inspected.data.effect.request.id).to.equal(b);
    expect(inspected.data.reconciliations.map((item: any) => item.reconciliationId)).to.deep.equal([applied.data.reconciliationId, compensated.reconciliationId]);
    expect(inspected.data.effectiveReconciliation).to.deep.equal(inspected.data.reconciliations[1]);
    expect(inspected.data.protocolCall).to.equal(null);
    expect(outcome(cli('inspect', runId, '--db', ws.db), 0).data.effectReconciliations).to.deep.equal(inspected.data.reconciliations);
  });

  it('runs analyze and upgrade find nothing to upgrade, in the reference documents; a run that has not ended is refused', () => {
    ws.write(
      'wf.yaml',
      workflow({
        policy: { processAllowlist: ['sh'], writableRoots: ['.'], approval: 'never' },
        actions: { a: append('a'), b: append('b', 'exit 1; '), c: append('c') },
        tasks: [{ id: 'a', uses: 'action:a' }, { id: 'b', uses: 'action:b', needs: ['a'] }, { id: 'c', uses: 'action:c', needs: ['b'] }],
      }),
    );
    const runId = errorDocument(cli('run', ws.file('wf.yaml'), '--db', ws.db), 4).error.runId as string;
    const analysis = outcome(cli('runs', '--db', ws.db, 'analyze', runId), 0);
    expect(analysis.kind).to.equal('LegacyRunUpgradeAnalysis');
    expect(analysis.data).to.deep.include({
      apiVersion: 'agentctl.dev/legacy-upgrade/v1',
      runId,
      terminal: true,
      fullyUpgradeable: true,
      alreadyCurrent: true,
      upgradeableTasks: [],
      unavailableTasks: ['b', 'c'],
      recommendedRepairRoots: ['b'],
    });
    expect(analysis.data.tasks.map((task: any) => [task.taskId, task.alreadyCurrent, task.confidence])).to.deep.equal([
      ['a', true, 'already_current'],
      ['b', false, 'unavailable'],
      ['c', false, 'unavailable'],
    ]);
    expect(outcome(cli('runs', '--db', ws.db, 'upgrade', runId, '--dry-run'), 0)).to.deep.include({ kind: 'LegacyRunUpgradeAnalysis', data: analysis.data });
    const upgrade = outcome(cli('runs', '--db', ws.db, 'upgrade', runId), 0);
    expect(upgrade.kind).to.equal('LegacyRunUpgrade');
    expect(upgrade.data).to.deep.equal({ upgradeId: null, runId, upgradedTasks: [], analysisBefore: analysis.data, analysisAfter: analysis.data });

    const { runId: pausedRun } = paused();
    diagnosticWithCode(errorDocument(cli('runs', '--db', ws.db, 'analyze', pausedRun), 3), 'AGENTCTL_E_RUN_NOT_TERMINAL');
  });

  it('schema --kind ApprovalList describes an array', () => {
    const printed = outcome(cli('schema', '--kind', 'ApprovalList'), 0);
    expect(printed.data.properties.data.type).to.equal('array');
    expect(printed.data.properties.data.items.required).to.include.members(['approvalId', 'runId', 'effectId', 'taskId', 'tool', 'capability', 'redactedInput', 'status']);
  });
});
