// `retry`, `repair` and `fork` end to end: derived runs that reuse what is provably unchanged and run the rest fresh.
import { readFileSync, existsSync, writeFileSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { baseEnv, parseDocument, runCli } from '../support/cli.js';
import { errorDocument, outcome, rows, runCount, useWorkspace, workflow } from './helpers.js';
import { stringify, parse } from 'yaml';

/** Four tasks in a chain; `first`, `second` and `fourth` append a line to lines.txt; `third` runs `check`. */
function chain(options: { check?: string[]; firstArgs?: string[]; name?: string; secretEnv?: boolean; extraTask?: boolean } = {}): string {
  const append = { kind: 'builtin.shell.exec', command: '/bin/sh', args: ['-c', 'echo "$0" >> lines.txt'] };
  return workflow(
    {
      inputs: { label: 'first' },
      policy: { processAllowlist: ['sh', 'test', 'false', 'true', 'sleep'], approval: 'never', ...(options.secretEnv ? { environmentAllowlist: ['TOKEN'] } : {}) },
      outputs: { last: '${{ tasks.fourth.output.exitCode }}' },
      actions: {
        append,
        // Only `first` uses it: a secret reference that a reuse of `first` must not need.
        appendWithSecret: { ...append, ...(options.secretEnv ? { env: { TOKEN: { env: 'DERIVE_TEST_TOKEN' } } } : {}) },
        check: { kind: 'builtin.shell.exec', command: options.check?.[0] ?? '/bin/false', args: options.check?.slice(1) ?? [] },
      },
      tasks: [
        { id: 'first', uses: 'action:appendWithSecret', with: { args: options.firstArgs ?? ['${{ inputs.label }}'] } },
        { id: 'second', uses: 'action:append', needs: ['first'], with: { args: ['second'] } },
        { id: 'third', uses: 'action:check', needs: ['second'] },
        { id: 'fourth', uses: 'action:append', needs: ['third'], with: { args: ['fourth'] } },
        ...(options.extraTask ? [{ id: 'extra', uses: 'action:append', needs: ['first'], with: { args: ['extra'] } }] : []),
      ],
    },
    options.name ?? 'chain',
  );
}

describe('retry, repair and fork', () => {
  const state = useWorkspace();
  const ws = () => state.ws;
  const cli = (args: string[], env = baseEnv()) => runCli([...args, '--db', ws().db, '--output', 'json'], { env });
  const lines = () => (existsSync(ws().file('lines.txt')) ? readFileSync(ws().file('lines.txt'), 'utf8') : '');
  const failedRun = (text = chain(), env = baseEnv()) => {
    const file = ws().write('flow.yaml', text);
    const result = cli(['run', file], env);
    expect(result.status, result.stderr).to.equal(4);
    return { file, runId: parseDocument(result.stderr).error.runId as string };
  };
  const effects = (runId: string) => rows(ws().db, 'SELECT task_id, state FROM effects WHERE run_id = ? ORDER BY task_id', runId);
  const tasksOf = (runId: string) => rows(ws().db, 'SELECT task_id, state, attempt, disposition FROM tasks WHERE run_id = ? ORDER BY position', runId);

  it('repair --plan lists first and second reused and third and fourth fresh, writes nothing; the repair reuses them and succeeds; inspect shows lineage', () => {
    const { file, runId } = failedRun();
    expect(lines()).to.equal('first\nsecond\n');
    writeFileSync(file, chain({ check: ['/bin/true'] }));
    const before = readFileSync(ws().db);
    const plan = outcome(cli(['repair', file, runId, '--from', 'third', '--plan']), 0);
    expect(readFileSync(ws().db).equals(before)).to.equal(true);
    expect(runCount(ws().db)).to.equal(1);
    expect(plan.kind).to.equal('RepairPlan');
    expect(plan.data).to.deep.include({ mode: 'repair', sourceRunId: runId, compatible: true, roots: ['third'], removed: [], added: [], blocks: [] });
    expect(plan.data.sourceDigest).to.not.equal(plan.data.targetDigest);
    expect(plan.data.tasks.map((task: any) => [task.taskId, task.disposition, task.reason])).to.deep.equal([
      ['first', 'reuse', 'unchanged'],
      ['second', 'reuse', 'unchanged'],
      ['third', 'execute', 'root'],
      ['fourth', 'execute', 'descendant_of_root'],
    ]);
    expect(plan.data.tasks[0].checks.map((check: any) => [check.check, check.passed])).to.deep.equal([
      ['definition_fingerprint_mismatch', true],
      ['resolved_input_digest_mismatch', true],
      ['dependency_set_mismatch', true],
      ['output_contract_mismatch', true],
      ['output_digest_mismatch', true],
      ['artifact_integrity', true],
      ['unreconciled_effect', true],
      ['compensated_effect', true],
    ]);
    const human = runCli(['repair', file, runId, '--from', 'third', '--plan', '--db', ws().db]);
    expect(human.status).to.equal(0);
    expect(human.stdout).to.match(/first\s+reused\s+unchanged/).and.to.match(/fourth\s+fresh\s+descendant_of_root/);

    const repaired = outcome(cli(['repair', file, runId, '--from', 'third', '--reason', 'third fixed']), 0);
    expect(repaired.data).to.deep.include({ state: 'succeeded', mode: 'repair', sourceRunId: runId, roots: ['third'], reused: ['first', 'second'], executed: ['third', 'fourth'], output: { last: 0 } });
    expect(lines()).to.equal('first\nsecond\nfourth\n');
    expect(tasksOf(repaired.data.runId)).to.deep.equal([
      { task_id: 'first', state: 'succeeded', attempt: 0, disposition: 'reused' },
      { task_id: 'second', state: 'succeeded', attempt: 0, disposition: 'reused' },
      { task_id: 'third', state: 'succeeded', attempt: 1, disposition: 'executed' },
      { task_id: 'fourth', state: 'succeeded', attempt: 1, disposition: 'executed' },
    ]);
    // Reused tasks dispatch nothing: only the fresh ones have effects in the new run.
    expect(effects(repaired.data.runId)).to.deep.equal([{ task_id: 'fourth', state: 'succeeded' }, { task_id: 'third', state: 'succeeded' }]);
    // The source is untouched.
    expect(rows(ws().db, 'SELECT state, mode FROM runs WHERE id = ?', runId)).to.deep.equal([{ state: 'failed', mode: 'execute' }]);
    expect(rows(ws().db, 'SELECT output_json FROM tasks WHERE run_id = ? AND task_id = ?', repaired.data.runId, 'first')).to.deep.equal(rows(ws().db, 'SELECT output_json FROM tasks WHERE run_id = ? AND task_id = ?', runId, 'first'));

    const view = outcome(runCli(['inspect', repaired.data.runId, '--db', ws().db, '--output', 'json']), 0).data;
    expect(view.run).to.deep.include({ mode: 'repair', sourceRunId: runId });
    expect(view.lineage).to.deep.include({ mode: 'repair', sourceRunId: runId, roots: ['third'], reason: 'third fixed' });
    expect(view.tasks[0].reuse.sourceRunId).to.equal(runId);
    expect(view.tasks[0].reuse.checks).to.have.length(8);
    expect(view.tasks[0].reuse.sourceEffectIds).to.deep.equal(rows(ws().db, `SELECT id FROM effects WHERE run_id = ? AND task_id = 'first'`, runId).map((row) => row.id));
    expect(view.tasks[2].reuse).to.equal(null);
    const text = runCli(['inspect', repaired.data.runId, '--db', ws().db]).stdout;
    expect(text).to.contain(`repair of run ${runId}, roots: third, reason: third fixed`);
  });

  it('a changed `with` of a reused task blocks the plan (exit 3) naming the definition and the resolved input; a changed --input names the resolved input', () => {
    const { file, runId } = failedRun();
    writeFileSync(file, chain({ check: ['/bin/true'], firstArgs: ['first, changed'] }));
    const before = readFileSync(ws().db);
    const plan = outcome(cli(['repair', file, runId, '--from', 'third', '--plan']), 3);
    expect(readFileSync(ws().db).equals(before)).to.equal(true);
    expect(plan.ok, "ok is true on every stdout document; the exit code tells a blocked plan").to.equal(true);
    expect(plan.data.compatible).to.equal(false);
    expect(plan.data.blocks.map((block: any) => [block.block, block.taskId])).to.deep.equal([
      ['definition_fingerprint_mismatch', 'first'],
      ['resolved_input_digest_mismatch', 'first'],
    ]);
    expect(plan.diagnostics.map((item: any) => item.code)).to.deep.equal(['AGENTCTL_E_REPAIR_BLOCKED', 'AGENTCTL_E_REPAIR_BLOCKED']);
    // `second` needs a blocked task: it is not judged on its own, the block of `first` says what to fix.
    expect(plan.data.tasks.map((task: any) => [task.disposition, task.reason])).to.deep.equal([
      ['blocked', 'definition_fingerprint_mismatch'],
      ['blocked', 'needs_blocked_task'],
      ['execute', 'root'],
      ['execute', 'descendant_of_root'],
    ]);

    const refused = errorDocument(cli(['repair', file, runId, '--from', 'third']), 3);
    expect(refused.error.message).to.contain('nothing was written');
    expect(refused.diagnostics[0].message).to.match(/^definition_fingerprint_mismatch: task first cannot be reused/);
    expect(runCount(ws().db)).to.equal(1);

    writeFileSync(file, chain({ check: ['/bin/true'] }));
    const input = outcome(cli(['repair', file, runId, '--from', 'third', '--plan', '--input', 'label=other']), 3);
    expect(input.data.blocks.map((block: any) => [block.block, block.taskId])).to.deep.equal([['resolved_input_digest_mismatch', 'first']]);
  });

  it('retry --failed after a transient failure: a new run reuses first and second, runs third and fourth, and repeats no effect', () => {
    const marker = ws().file('ready');
    const { file, runId } = failedRun(chain({ check: ['/usr/bin/test', '-f', marker] }));
    writeFileSync(marker, '');
    const plan = outcome(cli(['retry', file, runId, '--failed', '--plan']), 0);
    expect(plan.data.tasks.map((task: any) => task.disposition)).to.deep.equal(['reuse', 'reuse', 'execute', 'execute']);
    const retried = outcome(cli(['retry', file, runId, '--failed']), 0);
    expect(retried.data).to.deep.include({ state: 'succeeded', mode: 'retry', sourceRunId: runId, roots: ['third'], reused: ['first', 'second'], executed: ['third', 'fourth'] });
    expect(lines()).to.equal('first\nsecond\nfourth\n');
    expect(rows(ws().db, `SELECT COUNT(*) AS n FROM effects WHERE task_id IN ('first', 'second')`)[0].n).to.equal(2);
    expect(rows(ws().db, 'SELECT mode, source_run_id FROM runs WHERE id = ?', retried.data.runId)).to.deep.equal([{ mode: 'retry', source_run_id: runId }]);
    unlinkSync(marker);
  });

  it('retry refuses a changed workflow (exit 2) and a succeeded --from task without --restart-successful (exit 3)', () => {
    const { file, runId } = failedRun();
    const original = readFileSync(file, 'utf8');
    writeFileSync(file, `${original}\n# a comment changes the digest\n`);
    const changed = errorDocument(cli(['retry', file, runId, '--failed']), 2);
    expect(changed.diagnostics[0].code).to.equal('AGENTCTL_E_RETRY_WORKFLOW_CHANGED');
    expect(changed.diagnostics[0].help).to.contain('agentctl repair');
    writeFileSync(file, original);
    const succeeded = outcome(cli(['retry', file, runId, '--from', 'second', '--plan']), 3);
    // `second` ran `sh`, whose effect is not known to be safe to repeat: that too needs the acknowledgement.
    expect(succeeded.data.blocks.map((block: any) => block.block)).to.deep.equal(['successful_root_requires_acknowledgement', 'non_idempotent_effect']);
    expect(errorDocument(cli(['retry', file, runId, '--from', 'second']), 3).diagnostics[0].code).to.equal('AGENTCTL_E_REPAIR_BLOCKED');
    const acknowledged = outcome(cli(['retry', file, runId, '--from', 'second', '--restart-successful', '--plan']), 0);
    expect(acknowledged.data.tasks.map((task: any) => task.disposition)).to.deep.equal(['reuse', 'execute', 'execute', 'execute']);
  });

  it('an uncertain effect of a task that would run again blocks (exit 3, naming it) until it is reconciled not-applied', () => {
    const file = ws().write('slow.yaml', chain({ check: ['/bin/sleep', '30'] }));
    const cancelled = cli(['run', file, '--timeout-seconds', '2']);
    expect(cancelled.status, cancelled.stderr).to.equal(130);
    const runId = parseDocument(cancelled.stdout).data.runId as string;
    const [uncertain] = rows(ws().db, `SELECT id, state FROM effects WHERE run_id = ? AND task_id = 'third'`, runId);
    expect(uncertain.state).to.equal('uncertain');
    const blocked = outcome(cli(['repair', file, runId, '--from', 'third', '--plan']), 3);
    expect(blocked.data.blocks).to.deep.equal([{ block: 'unreconciled_effect', taskId: 'third', effectId: uncertain.id, message: blocked.data.blocks[0].message }]);
    expect(blocked.diagnostics[0].message).to.contain(uncertain.id);
    expect(blocked.diagnostics[0].help).to.contain(`agentctl effects reconcile ${uncertain.id}`);
    // --failed selects nothing failed here, but the cancelled task is run again all the same, and blocks the same way.
    expect(outcome(cli(['retry', file, runId, '--failed', '--plan']), 3).data.blocks[0].effectId).to.equal(uncertain.id);
    outcome(cli(['effects', 'reconcile', uncertain.id, '--status', 'not-applied', '--reason', 'sleep does nothing']), 0);
    const plan = outcome(cli(['repair', file, runId, '--from', 'third', '--plan']), 0);
    expect(plan.data.tasks.map((task: any) => task.disposition)).to.deep.equal(['reuse', 'reuse', 'execute', 'execute']);
  });

  it('an effect reconciled applied blocks the task that would repeat it (exit 3) until --restart-successful', () => {
    const file = ws().write('slow.yaml', chain({ check: ['/bin/sleep', '30'] }));
    const cancelled = cli(['run', file, '--timeout-seconds', '2']);
    expect(cancelled.status, cancelled.stderr).to.equal(130);
    const runId = parseDocument(cancelled.stdout).data.runId as string;
    const [uncertain] = rows(ws().db, `SELECT id FROM effects WHERE run_id = ? AND task_id = 'third'`, runId);
    outcome(cli(['effects', 'reconcile', uncertain.id, '--status', 'applied', '--reason', 'the sleep ran']), 0);
    for (const args of [['retry', file, runId, '--failed', '--plan'], ['repair', file, runId, '--from', 'third', '--plan']]) {
      const blocked = outcome(cli(args), 3);
      expect(blocked.data.blocks, args.join(' ')).to.deep.equal([{ block: 'non_idempotent_effect', taskId: 'third', effectId: uncertain.id, message: blocked.data.blocks[0].message }]);
    }
    expect(errorDocument(cli(['retry', file, runId, '--failed']), 3).diagnostics[0].code).to.equal('AGENTCTL_E_REPAIR_BLOCKED');
    expect(runCount(ws().db)).to.equal(1);
    const acknowledged = outcome(cli(['retry', file, runId, '--failed', '--restart-successful', '--plan']), 0);
    expect(acknowledged.data.tasks.map((task: any) => task.disposition)).to.deep.equal(['reuse', 'reuse', 'execute', 'execute']);
  });

  it('fork of a succeeded run runs everything again from the recorded workflow, with lineage', () => {
    const file = ws().write('flow.yaml', chain({ check: ['/bin/true'] }));
    const source = outcome(cli(['run', file]), 0);
    unlinkSync(file);
    const fork = outcome(cli(['fork', source.data.runId, '--reason', 'again']), 0);
    expect(fork.data).to.deep.include({ state: 'succeeded', mode: 'fork', sourceRunId: source.data.runId, roots: [], reused: [], executed: ['first', 'second', 'third', 'fourth'] });
    expect(lines()).to.equal('first\nsecond\nfourth\nfirst\nsecond\nfourth\n');
    expect(rows(ws().db, 'SELECT mode, source_run_id FROM runs WHERE id = ?', fork.data.runId)).to.deep.equal([{ mode: 'fork', source_run_id: source.data.runId }]);
    expect(rows(ws().db, 'SELECT mode, source_run_id, reason FROM run_lineage WHERE run_id = ?', fork.data.runId)).to.deep.equal([{ mode: 'fork', source_run_id: source.data.runId, reason: 'again' }]);
    expect(rows(ws().db, 'SELECT DISTINCT disposition FROM tasks WHERE run_id = ?', fork.data.runId)).to.deep.equal([{ disposition: 'executed' }]);
  });

  it('changed needs and outputSchema, a dropped --from task and a tampered output each block with their own name; removed tasks are reported', () => {
    const { file, runId } = failedRun();
    const changed = parse(chain({ check: ['/bin/true'] }));
    changed.spec.tasks[0].outputSchema = { type: 'object' };
    delete changed.spec.tasks[1].needs;
    writeFileSync(file, stringify(changed));
    const plan = outcome(cli(['repair', file, runId, '--from', 'third', '--plan']), 3);
    expect(plan.data.blocks.map((block: any) => [block.block, block.taskId])).to.deep.equal([
      ['output_contract_mismatch', 'first'],
      ['dependency_set_mismatch', 'second'],
    ]);
    const dropped = parse(chain({ check: ['/bin/true'] }));
    dropped.spec.tasks.pop();
    dropped.spec.outputs = {};
    writeFileSync(file, stringify(dropped));
    const missing = outcome(cli(['repair', file, runId, '--from', 'fourth', '--plan']), 3);
    expect(missing.data.removed).to.deep.equal(['fourth']);
    expect(missing.data.blocks.map((block: any) => [block.block, block.taskId])).to.deep.equal([['repair_root_missing', 'fourth']]);
    const removed = outcome(cli(['repair', file, runId, '--from', 'third', '--plan']), 0);
    expect(removed.data).to.deep.include({ removed: ['fourth'], compatible: true });

    // The stored output of `second` no longer hashes to the digest recorded with it.
    const db = new Database(ws().db);
    db.prepare(`UPDATE tasks SET output_json = '{"exitCode":0,"stdout":"forged","stderr":""}' WHERE run_id = ? AND task_id = 'second'`).run(runId);
    db.close();
    const tampered = outcome(cli(['repair', file, runId, '--from', 'third', '--plan']), 3);
    expect(tampered.data.blocks.map((block: any) => [block.block, block.taskId])).to.deep.equal([['output_digest_mismatch', 'second']]);
  });

  it('a reused task keeps its artifact references; a blob that no longer verifies blocks its reuse (artifact_integrity)', () => {
    const spec = (command: string) =>
      workflow({
        policy: { processAllowlist: [command], writableRoots: ['out'], approval: 'never' },
        actions: { save: { kind: 'builtin.write' }, check: { kind: 'builtin.shell.exec', command: `/bin/${command}` } },
        tasks: [
          { id: 'save', uses: 'action:save', with: { path: 'out/note.txt', content: 'kept\n' } },
          { id: 'check', uses: 'action:check', needs: ['save'] },
        ],
      });
    const { file, runId } = failedRun(spec('false'));
    writeFileSync(file, spec('true'));
    const repaired = outcome(cli(['repair', file, runId, '--from', 'check']), 0);
    expect(repaired.data.reused).to.deep.equal(['save']);
    const references = (id: string) => rows(ws().db, 'SELECT task_id, path, digest FROM task_artifacts WHERE run_id = ?', id);
    expect(references(repaired.data.runId)).to.deep.equal(references(runId)).and.to.have.length(1);
    const digest = String(references(runId)[0].digest).slice('sha256:'.length);
    unlinkSync(join(dirname(ws().db), 'artifacts', 'sha256', digest.slice(0, 2), digest));
    const blocked = outcome(cli(['repair', file, runId, '--from', 'check', '--plan']), 3);
    expect(blocked.data.blocks.map((block: any) => [block.block, block.taskId])).to.deep.equal([['artifact_integrity', 'save']]);
    expect(blocked.data.blocks[0].message).to.contain('out/note.txt');
  });

  it('a derived run that pauses for an approval is continued with resume; reused tasks stay reused', () => {
    const { file, runId } = failedRun();
    writeFileSync(file, chain({ check: ['/bin/true'] }).replace('approval: never', 'approval: mutations'));
    const paused = cli(['repair', file, runId, '--from', 'third'], baseEnv({ CI: 'true' }));
    expect(paused.status, paused.stderr).to.equal(3);
    const derived = parseDocument(paused.stdout).data;
    expect(derived).to.deep.include({ state: 'paused', mode: 'repair', reused: ['first', 'second'] });
    const pending = () => outcome(cli(['approvals', 'list', derived.runId]), 0).data.filter((item: any) => item.status === 'pending');
    const approveNext = (taskId: string) => {
      const [next] = pending();
      expect(next.taskId).to.equal(taskId);
      outcome(cli(['approvals', 'approve', next.approvalId, '--reason', 'fixed']), 0);
    };
    approveNext('third');
    const again = cli(['resume', derived.runId], baseEnv({ CI: 'true' }));
    expect(again.status, again.stderr).to.equal(3);
    approveNext('fourth');
    expect(outcome(cli(['resume', derived.runId]), 0).data.state).to.equal('succeeded');
    expect(lines()).to.equal('first\nsecond\nfourth\n');
    expect(tasksOf(derived.runId).map((task) => task.disposition)).to.deep.equal(['reused', 'reused', 'executed', 'executed']);
  });

  it('bad inputs: each a clear code and exit code', () => {
    const { file, runId } = failedRun();
    const code = (args: string[], exit: number) => errorDocument(cli(args), exit).diagnostics[0].code as string;
    expect(code(['retry', file, 'run_doesnotexist', '--failed'], 2)).to.equal('AGENTCTL_E_RUN_NOT_FOUND');
    expect(code(['fork', 'run_doesnotexist'], 2)).to.equal('AGENTCTL_E_RUN_NOT_FOUND');
    expect(code(['repair', file, runId, '--from', 'nosuchtask', '--plan'], 2)).to.equal('AGENTCTL_E_UNKNOWN_TASK');
    expect(code(['retry', file, runId, '--failed', '--from', 'third'], 2)).to.equal('AGENTCTL_E_USAGE');
    expect(code(['retry', file, runId], 2)).to.equal('AGENTCTL_E_USAGE');
    expect(code(['repair', file, runId], 2)).to.equal('AGENTCTL_E_USAGE');
    expect(code(['repair', ws().write('other.yaml', chain({ name: 'other' })), runId, '--from', 'third'], 2)).to.equal('AGENTCTL_E_REPAIR_NAME_MISMATCH');
    expect(code(['repair', ws().file('missing.yaml'), runId, '--from', 'third', '--plan'], 2)).to.equal('AGENTCTL_E_FILE_NOT_FOUND');
    // A new task that no --from leads to, and a --from task the corrected workflow dropped.
    const added = outcome(cli(['repair', ws().write('added.yaml', chain({ check: ['/bin/true'], extraTask: true })), runId, '--from', 'third', '--plan']), 3);
    expect(added.data.added).to.deep.equal(['extra']);
    expect(added.data.blocks.map((block: any) => [block.block, block.taskId])).to.deep.equal([['new_task_outside_repair_closure', 'extra']]);
    const rooted = outcome(cli(['repair', ws().write('added.yaml', chain({ check: ['/bin/true'], extraTask: true })), runId, '--from', 'extra', '--plan']), 0);
    expect(rooted.data.tasks.find((task: any) => task.taskId === 'extra')).to.deep.include({ taskId: 'extra', disposition: 'execute', reason: 'new_task', sourceState: null, sourceFingerprint: null });
    // A paused source: approval pending (the default approval policy asks for the process), nobody at a terminal.
    const pausedFile = ws().write('paused.yaml', chain({ check: ['/bin/true'], name: 'chain' }).replace('approval: never', 'approval: mutations'));
    const paused = cli(['run', pausedFile], baseEnv({ CI: 'true' }));
    expect(paused.status, paused.stderr).to.equal(3);
    const pausedId = parseDocument(paused.stdout).data.runId as string;
    expect(code(['retry', pausedFile, pausedId, '--failed'], 3)).to.equal('AGENTCTL_E_RUN_NOT_TERMINAL');
    expect(code(['repair', pausedFile, pausedId, '--from', 'third', '--plan'], 3)).to.equal('AGENTCTL_E_RUN_NOT_TERMINAL');
  });

  it('a reused task whose action references an absent secret does not fail the repair: only fresh tasks resolve secrets', () => {
    const { file, runId } = failedRun(chain({ secretEnv: true }), baseEnv({ DERIVE_TEST_TOKEN: 'token-value-1234' }));
    expect(lines()).to.equal('first\nsecond\n');
    writeFileSync(file, chain({ secretEnv: true, check: ['/bin/true'] }));
    const repaired = outcome(cli(['repair', file, runId, '--from', 'third']), 0);
    expect(repaired.data.reused).to.deep.equal(['first', 'second']);
    expect(lines()).to.equal('first\nsecond\nfourth\n');
    // Running `first` again would need it: a fork refuses before creating anything.
    const runs = runCount(ws().db);
    expect(errorDocument(cli(['fork', runId]), 4).diagnostics[0].code).to.equal('AGENTCTL_E_SECRET_MISSING');
    expect(runCount(ws().db)).to.equal(runs);
  });
});
