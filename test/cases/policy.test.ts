// Policy denials (exit 4, nothing started, no effect row) and approvals (pause, deny, fail, never, observe).
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { runCli, workspace } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome, rows, shellWorkflow, workflow } from './helpers.js';

type Workspace = ReturnType<typeof workspace>;

/** Runs wf.yaml and asserts a policy denial of task `taskId` with `code`: exit 4, a failed run, no effect row. */
function expectDenied(ws: Workspace, taskId: string, code: string): any {
  const document = errorDocument(runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json']), 4);
  expect(document.error.runId).to.match(/^run_/);
  expect(document.error.traceId).to.match(/^[0-9a-f]{32}$/);
  const found = diagnosticWithCode(document, code);
  expect(found.taskId).to.equal(taskId);
  expect(document.error.message).to.contain(taskId);
  const [run] = rows(ws.db, 'SELECT id, state FROM runs');
  expect(run).to.deep.equal({ id: document.error.runId, state: 'failed' });
  expect(rows(ws.db, 'SELECT state FROM tasks WHERE task_id = ?', taskId)).to.deep.equal([{ state: 'failed' }]);
  expect(rows(ws.db, 'SELECT COUNT(*) AS n FROM effects')).to.deep.equal([{ n: 0 }]);
  const denied = rows(ws.db, `SELECT task_id, data_json FROM audit_events WHERE type = 'policy.denied'`);
  expect(denied).to.have.length(1);
  expect(denied[0].task_id).to.equal(taskId);
  expect(JSON.parse(denied[0].data_json).code).to.equal(code);
  return found;
}

describe('policy denials', () => {
  let ws: Workspace;
  let outside: Workspace;
  beforeEach(() => {
    ws = workspace();
    outside = workspace();
  });
  afterEach(() => {
    ws.cleanup();
    outside.cleanup();
  });

  const marker = () => ws.file('marker');
  const touch = () => ({ command: 'touch', args: [marker()] });

  it('a command whose basename is not in processAllowlist → AGENTCTL_E_POLICY_PROCESS_DENIED, nothing runs', () => {
    ws.write('wf.yaml', shellWorkflow(touch(), { processAllowlist: ['sh', 'ls'], approval: 'never' }));
    const found = expectDenied(ws, 'cmd', 'AGENTCTL_E_POLICY_PROCESS_DENIED');
    expect(found.message).to.contain('touch');
    expect(existsSync(marker())).to.equal(false);
  });

  it('the allowlist check runs before approval: a denied command under approval: mutations still fails with exit 4', () => {
    ws.write('wf.yaml', shellWorkflow(touch(), { processAllowlist: ['ls'] }));
    expectDenied(ws, 'cmd', 'AGENTCTL_E_POLICY_PROCESS_DENIED');
    expect(rows(ws.db, 'SELECT COUNT(*) AS n FROM approvals')).to.deep.equal([{ n: 0 }]);
    expect(existsSync(marker())).to.equal(false);
  });

  it('an absolute command path is judged by its basename', () => {
    ws.write('wf.yaml', shellWorkflow({ command: '/bin/sh', args: ['-c', `touch ${marker()}`] }, { processAllowlist: ['bash', 'touch'], approval: 'never' }));
    expectDenied(ws, 'cmd', 'AGENTCTL_E_POLICY_PROCESS_DENIED');
    expect(existsSync(marker())).to.equal(false);
  });

  it('an env name not in environmentAllowlist → AGENTCTL_E_POLICY_ENV_DENIED', () => {
    ws.write('wf.yaml', shellWorkflow({ ...touch(), env: { ALLOWED: 'a', FORBIDDEN: 'b' } }, { processAllowlist: ['touch'], environmentAllowlist: ['ALLOWED'], approval: 'never' }));
    const found = expectDenied(ws, 'cmd', 'AGENTCTL_E_POLICY_ENV_DENIED');
    expect(found.message).to.contain('FORBIDDEN');
    expect(found.message).to.not.match(/\bALLOWED\b/);
    expect(existsSync(marker())).to.equal(false);
  });

  it('a cwd of .. → AGENTCTL_E_POLICY_PATH_ESCAPE', () => {
    ws.write('wf.yaml', shellWorkflow({ ...touch(), cwd: '..' }, { processAllowlist: ['touch'], approval: 'never' }));
    expectDenied(ws, 'cmd', 'AGENTCTL_E_POLICY_PATH_ESCAPE');
    expect(existsSync(marker())).to.equal(false);
  });

  it('a cwd with a .. component is refused even when it resolves inside the workspace', () => {
    mkdirSync(ws.file('sub'));
    ws.write('wf.yaml', shellWorkflow({ ...touch(), cwd: 'sub/../sub' }, { processAllowlist: ['touch'], approval: 'never' }));
    expectDenied(ws, 'cmd', 'AGENTCTL_E_POLICY_PATH_ESCAPE');
    expect(existsSync(marker())).to.equal(false);
  });

  it('a cwd that is a symlink to a folder outside the workspace → AGENTCTL_E_POLICY_PATH_ESCAPE', () => {
    symlinkSync(outside.dir, ws.file('elsewhere'));
    ws.write('wf.yaml', shellWorkflow({ command: 'touch', args: ['marker'], cwd: 'elsewhere' }, { processAllowlist: ['touch'], approval: 'never' }));
    expectDenied(ws, 'cmd', 'AGENTCTL_E_POLICY_PATH_ESCAPE');
    expect(existsSync(outside.file('marker'))).to.equal(false);
  });

  it('an absolute cwd outside the workspace → AGENTCTL_E_POLICY_PATH_ESCAPE', () => {
    ws.write('wf.yaml', shellWorkflow({ command: 'touch', args: ['marker'], cwd: outside.dir }, { processAllowlist: ['touch'], approval: 'never' }));
    expectDenied(ws, 'cmd', 'AGENTCTL_E_POLICY_PATH_ESCAPE');
    expect(existsSync(outside.file('marker'))).to.equal(false);
  });

  const readWorkflow = (path: string) =>
    workflow({ actions: { read: { kind: 'builtin.read' } }, tasks: [{ id: 'read', uses: 'action:read', with: { path } }], outputs: { content: '${{ tasks.read.output.content }}' } });

  it('builtin.read of ../x → AGENTCTL_E_POLICY_PATH_ESCAPE', () => {
    // The workflow (and so the workspace) is project/; x sits beside it.
    ws.write('x', 'outside the workspace\n');
    ws.write('project/wf.yaml', readWorkflow('../x'));
    const project = { ...ws, file: (name: string) => join(ws.dir, 'project', name) };
    const found = expectDenied(project, 'read', 'AGENTCTL_E_POLICY_PATH_ESCAPE');
    expect(found.message).to.contain('..');
  });

  it('builtin.read of a symlink to a file outside the workspace → AGENTCTL_E_POLICY_PATH_ESCAPE', () => {
    const secret = outside.write('secret.txt', 'not for the workflow\n');
    symlinkSync(secret, ws.file('link.txt'));
    ws.write('wf.yaml', readWorkflow('link.txt'));
    const document = errorDocument(runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json']), 4);
    expect(JSON.stringify(document)).to.not.contain('not for the workflow');
    expectDeniedRows(ws, 'read', 'AGENTCTL_E_POLICY_PATH_ESCAPE');
    expect(diagnosticWithCode(document, 'AGENTCTL_E_POLICY_PATH_ESCAPE').taskId).to.equal('read');
  });

  it('builtin.read of an absolute path outside the workspace → AGENTCTL_E_POLICY_PATH_ESCAPE', () => {
    const secret = outside.write('secret.txt', 'not for the workflow\n');
    ws.write('wf.yaml', readWorkflow(secret));
    expectDenied(ws, 'read', 'AGENTCTL_E_POLICY_PATH_ESCAPE');
  });

  it('builtin.write outside writableRoots → AGENTCTL_E_POLICY_NOT_WRITABLE, no file written', () => {
    ws.write(
      'wf.yaml',
      workflow({
        policy: { writableRoots: ['out'], approval: 'never' },
        actions: { save: { kind: 'builtin.write' } },
        tasks: [{ id: 'save', uses: 'action:save', with: { path: 'other/file.txt', content: 'x' } }],
      }),
    );
    expectDenied(ws, 'save', 'AGENTCTL_E_POLICY_NOT_WRITABLE');
    expect(existsSync(ws.file('other/file.txt'))).to.equal(false);
    expect(existsSync(ws.file('other'))).to.equal(false);
  });

  it('builtin.write through a symlinked folder inside a writable root that points outside → refused', () => {
    mkdirSync(ws.file('out'));
    symlinkSync(outside.dir, ws.file('out/escape'));
    ws.write(
      'wf.yaml',
      workflow({
        policy: { writableRoots: ['out'], approval: 'never' },
        actions: { save: { kind: 'builtin.write' } },
        tasks: [{ id: 'save', uses: 'action:save', with: { path: 'out/escape/file.txt', content: 'x' } }],
      }),
    );
    const document = errorDocument(runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json']), 4);
    const code = document.diagnostics[0].code;
    expect(['AGENTCTL_E_POLICY_PATH_ESCAPE', 'AGENTCTL_E_POLICY_NOT_WRITABLE']).to.include(code);
    expectDeniedRows(ws, 'save', code);
    expect(existsSync(outside.file('file.txt'))).to.equal(false);
  });
});

function expectDeniedRows(ws: Workspace, taskId: string, code: string): void {
  expect(rows(ws.db, 'SELECT state FROM runs')).to.deep.equal([{ state: 'failed' }]);
  expect(rows(ws.db, 'SELECT COUNT(*) AS n FROM effects')).to.deep.equal([{ n: 0 }]);
  const denied = rows(ws.db, `SELECT task_id, data_json FROM audit_events WHERE type = 'policy.denied'`);
  expect(denied.map((row) => [row.task_id, JSON.parse(row.data_json).code])).to.deep.equal([[taskId, code]]);
}

describe('approvals', () => {
  let ws: Workspace;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  const marker = () => ws.file('marker');
  const write = (policy: Record<string, unknown>) => ws.write('wf.yaml', shellWorkflow({ command: 'touch', args: [marker()] }, { processAllowlist: ['touch'], ...policy }));

  it('default policy (approval mutations, nonInteractive pause): exit 3, paused, one pending approval, nothing ran', () => {
    write({});
    const result = runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json']);
    const document = outcome(result, 3);
    expect(document.kind).to.equal('RunOutcome');
    expect(document.ok).to.equal(true);
    expect(document.data.state).to.equal('paused');
    expect(document.data.tasks).to.deep.equal({ cmd: 'waiting_for_approval' });
    expect(document.data.output).to.deep.equal({});
    diagnosticWithCode(document, 'AGENTCTL_E_APPROVAL_PENDING');
    expect(existsSync(marker())).to.equal(false);

    expect(rows(ws.db, 'SELECT id, state FROM runs')).to.deep.equal([{ id: document.data.runId, state: 'paused' }]);
    const effects = rows(ws.db, 'SELECT id, task_id, state, operation FROM effects');
    expect(effects).to.have.length(1);
    expect(effects[0]).to.deep.include({ task_id: 'cmd', state: 'waiting_for_approval', operation: 'process.exec' });
    const approvals = rows(ws.db, 'SELECT run_id, task_id, effect_id, state FROM approvals');
    expect(approvals).to.deep.equal([{ run_id: document.data.runId, task_id: 'cmd', effect_id: effects[0].id, state: 'pending' }]);
    expect(rows(ws.db, 'SELECT state FROM tasks')).to.deep.equal([{ state: 'waiting_for_approval' }]);
    const types = rows(ws.db, 'SELECT type FROM audit_events ORDER BY seq').map((row) => row.type);
    expect(types).to.include('approval.requested');
    expect(types).to.not.include('effect.started');
  });

  it('nonInteractive: deny_approval → exit 4, AGENTCTL_E_APPROVAL_DENIED, nothing ran', () => {
    write({ nonInteractive: 'deny_approval' });
    const document = errorDocument(runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json']), 4);
    expect(document.error.runId).to.match(/^run_/);
    expect(diagnosticWithCode(document, 'AGENTCTL_E_APPROVAL_DENIED').taskId).to.equal('cmd');
    expect(existsSync(marker())).to.equal(false);
    expect(rows(ws.db, 'SELECT state FROM runs')).to.deep.equal([{ state: 'failed' }]);
    expect(rows(ws.db, 'SELECT COUNT(*) AS n FROM effects')).to.deep.equal([{ n: 0 }]);
    expect(rows(ws.db, 'SELECT COUNT(*) AS n FROM approvals')).to.deep.equal([{ n: 0 }]);
  });

  it('nonInteractive: fail → exit 3, AGENTCTL_E_APPROVAL_REQUIRED, nothing ran', () => {
    write({ nonInteractive: 'fail' });
    const document = errorDocument(runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json']), 3);
    expect(document.error.runId).to.match(/^run_/);
    expect(diagnosticWithCode(document, 'AGENTCTL_E_APPROVAL_REQUIRED').taskId).to.equal('cmd');
    expect(existsSync(marker())).to.equal(false);
    expect(rows(ws.db, 'SELECT state FROM runs')).to.deep.equal([{ state: 'failed' }]);
    expect(rows(ws.db, 'SELECT COUNT(*) AS n FROM effects')).to.deep.equal([{ n: 0 }]);
  });

  it('approval: never → the process runs', () => {
    write({ approval: 'never' });
    const document = outcome(runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json']), 0);
    expect(document.data.state).to.equal('succeeded');
    expect(existsSync(marker())).to.equal(true);
    expect(rows(ws.db, 'SELECT state FROM effects')).to.deep.equal([{ state: 'succeeded' }]);
    expect(rows(ws.db, 'SELECT COUNT(*) AS n FROM approvals')).to.deep.equal([{ n: 0 }]);
  });

  it('builtin.read under approval: mutations runs without approval (observe)', () => {
    writeFileSync(ws.file('note.txt'), 'hello\n');
    ws.write(
      'wf.yaml',
      workflow({
        policy: { approval: 'mutations' },
        actions: { read: { kind: 'builtin.read' } },
        tasks: [{ id: 'read', uses: 'action:read', with: { path: 'note.txt' } }],
        outputs: { content: '${{ tasks.read.output.content }}', bytes: '${{ tasks.read.output.bytes }}' },
      }),
    );
    const document = outcome(runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json']), 0);
    expect(document.data.output).to.deep.equal({ content: 'hello\n', bytes: 6 });
    expect(rows(ws.db, 'SELECT operation, effect_class, state FROM effects')).to.deep.equal([{ operation: 'filesystem.read', effect_class: 'observe', state: 'succeeded' }]);
    expect(rows(ws.db, 'SELECT COUNT(*) AS n FROM approvals')).to.deep.equal([{ n: 0 }]);
  });
});
