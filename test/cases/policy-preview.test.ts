// check and plan apply the policy before the run, with the core policy phase itself: the same verdicts and codes.
import { symlinkSync } from 'node:fs';
import { expect } from 'chai';
import { runCli } from '../support/cli.js';
import { errorDocument, outcome, rows, useWorkspace, workflow } from './helpers.js';

describe('policy before the run (check and plan)', () => {
  const state = useWorkspace();
  const check = (extra: string[] = []) => runCli(['check', state.ws.file('wf.yaml'), '--output', 'json', ...extra]);

  const denials = (approval: string) =>
    workflow({
      inputs: { target: 'elsewhere/x.txt' },
      policy: { processAllowlist: ['ls'], writableRoots: ['out'], approval },
      actions: { list: { kind: 'builtin.shell.exec', command: 'ls' }, cat: { kind: 'builtin.shell.exec', command: 'cat' }, save: { kind: 'builtin.write' }, read: { kind: 'builtin.read' } },
      tasks: [
        { id: 'list', uses: 'action:list', failure: 'continue' },
        { id: 'cat', uses: 'action:cat', failure: 'continue' },
        { id: 'save', uses: 'action:save', failure: 'continue', with: { path: '${{ inputs.target }}', content: 'x' } },
        { id: 'escape', uses: 'action:read', failure: 'continue', with: { path: '../outside.txt' } },
        { id: 'link', uses: 'action:read', failure: 'continue', with: { path: 'link/passwd' } },
        { id: 'later', uses: 'action:save', failure: 'continue', needs: ['list'], with: { path: '${{ tasks.list.output.stdout }}', content: 'x' } },
      ],
    });

  it('check exits 3 naming every task policy will deny, with the codes run gives those tasks', () => {
    symlinkSync('/etc', state.ws.file('link'));
    state.ws.write('wf.yaml', denials('never'));
    const document = errorDocument(check(), 3);
    const found = document.diagnostics.map((item: any) => [item.taskId, item.code, item.severity, item.path]);
    expect(found).to.deep.equal([
      ['cat', 'AGENTCTL_E_POLICY_PROCESS_DENIED', 'error', 'spec.tasks[1]'],
      ['save', 'AGENTCTL_E_POLICY_NOT_WRITABLE', 'error', 'spec.tasks[2]'],
      ['escape', 'AGENTCTL_E_POLICY_PATH_ESCAPE', 'error', 'spec.tasks[3]'],
      ['link', 'AGENTCTL_E_POLICY_PATH_ESCAPE', 'error', 'spec.tasks[4]'],
    ]);
    expect(document.error.message).to.match(/wf\.yaml:\d+:\d+: task cat will be denied: executable \S+ \(basename "cat"\) is not in policy\.processAllowlist \(and 3 more\)/);
    // run with the same document: the same tasks fail with the same codes (and `later`, whose path check could not know)
    outcome(runCli(['run', state.ws.file('wf.yaml'), '--db', state.ws.db, '--output', 'json']), 0);
    const failed = rows(state.ws.db, "SELECT task_id, error_json FROM tasks WHERE state = 'failed' ORDER BY position").map((row) => [row.task_id, JSON.parse(row.error_json).code]);
    expect(failed).to.deep.equal([...found.map(([task, code]: string[]) => [task, code]), ['later', 'AGENTCTL_E_POLICY_NOT_WRITABLE']]);
  });

  it('check warns about approvals with the code a run without a terminal ends with, and exits 0', () => {
    state.ws.write(
      'wf.yaml',
      workflow({
        policy: { processAllowlist: ['ls'], writableRoots: ['out'], approval: 'mutations', nonInteractive: 'fail' },
        actions: { list: { kind: 'builtin.shell.exec', command: 'ls' }, save: { kind: 'builtin.write' }, note: { kind: 'builtin.assign' } },
        tasks: [
          { id: 'note', uses: 'action:note', with: { a: 1 } },
          { id: 'save', uses: 'action:save', with: { path: 'out/x.txt', content: 'x' } },
        ],
      }),
    );
    const document = outcome(check(), 0);
    expect(document.diagnostics.map((item: any) => [item.taskId, item.code, item.severity])).to.deep.equal([['save', 'AGENTCTL_E_APPROVAL_REQUIRED', 'warning']]);
    expect(document.data.policy.map((item: any) => [item.taskId, item.decision, item.operations])).to.deep.equal([
      ['note', 'no_effect', []],
      ['save', 'needs_approval', ['filesystem.write']],
    ]);
    const ran = errorDocument(runCli(['run', state.ws.file('wf.yaml'), '--db', state.ws.db, '--output', 'json']), 3);
    expect(ran.diagnostics.map((item: any) => item.code)).to.include('AGENTCTL_E_APPROVAL_REQUIRED');
  });

  it('plan lists a policy verdict per task; a path known only at run time is unknown', () => {
    symlinkSync('/etc', state.ws.file('link'));
    state.ws.write('wf.yaml', denials('mutations'));
    const document = outcome(runCli(['plan', state.ws.file('wf.yaml'), '--input', 'target=out/ok.txt', '--output', 'json']), 0);
    expect(document.data.order.map((id: string) => document.data.tasks[id]).map((task: any) => [task.id, task.policy.decision, task.policy.code])).to.deep.equal([
      ['list', 'needs_approval', null],
      ['cat', 'deny', 'AGENTCTL_E_POLICY_PROCESS_DENIED'],
      ['save', 'needs_approval', null],
      ['escape', 'deny', 'AGENTCTL_E_POLICY_PATH_ESCAPE'],
      ['link', 'deny', 'AGENTCTL_E_POLICY_PATH_ESCAPE'],
      ['later', 'unknown', null],
    ]);
    expect(document.data.tasks[document.data.order[0]].policy).to.deep.equal({
      decision: 'needs_approval',
      operations: ['process.exec'],
      code: null,
      message: 'policy.approval is mutations and process.exec is process_execution (risk high)',
      help: null,
    });
  });

  it('check and plan judge paths against --workspace, as run does', () => {
    state.ws.write('wf.yaml', workflow({ policy: { approval: 'never', writableRoots: ['out'] }, actions: { read: { kind: 'builtin.read' } }, tasks: [{ id: 'r', uses: 'action:read', with: { path: 'data/in.txt' } }] }));
    state.ws.write('elsewhere/keep', '');
    symlinkSync('/etc', state.ws.file('elsewhere/data'));
    expect(outcome(check(), 0).data.policy[0].decision).to.equal('allow');
    expect(errorDocument(check(['--workspace', state.ws.file('elsewhere')]), 3).diagnostics[0].code).to.equal('AGENTCTL_E_POLICY_PATH_ESCAPE');
    expect(errorDocument(check(['--workspace', state.ws.file('missing')]), 2).diagnostics[0].code).to.equal('AGENTCTL_E_USAGE');
  });
});
