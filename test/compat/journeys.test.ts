// The reference's documented journeys (opensourceops/agentctl v0.4.0: README, docs/guides/GETTING_STARTED.md,
// FIRST_AGENT_WORKFLOW.md, LOCAL_OPERATION.md, MATRIX_AND_FOREACH.md, BOUNDED_LOOPS.md, CONDITIONS_AND_ROUTERS.md,
// docs/OPERATIONS.md, docs/VARIABLES.md and its doctor/sources CLI tests), run here with the commands and flags those
// pages show, against workflows written in the reference's format. Each assertion is what the reference documents: a
// script written against it must read the same values at the same JSON pointers. Recovery journeys (retry, repair,
// compensation) are in journeys-recovery.test.ts.
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { expect } from 'chai';
import { at, expectAt, inspectedTask, useJourney } from './journey-support.js';

const DB = '.agentctl/runtime.db';
const JSON_OUT = ['--output', 'json', '--color', 'never'];

describe('reference journey: quickstart (GETTING_STARTED, CLI_OUTPUT, examples/v1/README)', () => {
  const j = useJourney('hello.yaml', 'interrupted.yaml');

  it('check and plan write no state and agree on the digests; run succeeds with the declared output; inspect and db stats read it back', () => {
    const check = j.json(0, 'check', 'hello.yaml', ...JSON_OUT);
    expectAt(check, { '/kind': 'CheckResult', '/data/valid': true, '/data/workflow': 'hello', '/data/tasks': 1 });
    expect(at(check, '/data/workflowDigest')).to.be.a('string');
    expect(at(check, '/data/planDigest')).to.be.a('string');

    const plan = j.json(0, 'plan', 'hello.yaml', ...JSON_OUT);
    expectAt(plan, {
      '/kind': 'Plan',
      '/data/order': ['greet'],
      '/data/predictability': 'fully_predictable',
      '/data/tasks/greet/uses': { kind: 'action', name: 'assign' },
      '/data/planDigest': at(check, '/data/planDigest'),
      '/data/workflowDigest': at(check, '/data/workflowDigest'),
    });
    expect(j.exists('.agentctl'), 'check and plan create no state').to.equal(false);

    const run = j.json(0, 'run', 'hello.yaml', '--db', DB, ...JSON_OUT);
    expectAt(run, { '/kind': 'RunOutcome', '/data/state': 'succeeded', '/data/output': { greeting: 'hello, world' } });
    const runId = at(run, '/data/runId');
    expect(runId).to.be.a('string');
    expect(at(run, '/data/traceId')).to.be.a('string');
    expect(j.exists(DB)).to.equal(true);

    const inspection = j.json(0, 'inspect', runId, '--db', DB, ...JSON_OUT);
    expectAt(inspection, { '/kind': 'RunInspection', '/data/run/runId': runId, '/data/run/state': 'succeeded' });
    expect(inspectedTask(inspection, 'greet').state).to.equal('succeeded');

    const stats = j.json(0, 'db', 'stats', '--db', DB, ...JSON_OUT);
    expectAt(stats, { '/kind': 'DatabaseStats', '/data/runs': 1 });
    expect(at(stats, '/data/schemaVersion')).to.be.a('number');
  });

  it('a workflow that does not compile is exit 2, an Error on stderr with no run correlation, and no state', () => {
    j.ws.write('broken.yaml', readFileSync(j.ws.file('hello.yaml'), 'utf8').replace('uses: action:assign', 'uses: action:missing'));
    for (const command of ['check', 'plan', 'run']) {
      const failed = j.error(2, command, 'broken.yaml', '--db', DB, ...JSON_OUT);
      expectAt(failed, { '/error/exitCode': 2, '/error/runId': null, '/error/traceId': null });
      expect(Object.keys(at(failed, '/diagnostics/0'))).to.include.members(['code', 'severity', 'message', 'file', 'line', 'column', 'path', 'help']);
    }
    expect(j.exists('.agentctl'), 'a refused workflow creates no state').to.equal(false);
  });

  it('replay rebuilds the recorded result as a new run with zero effects; fork runs it again fresh', () => {
    const run = j.json(0, 'run', 'hello.yaml', '--db', '.agentctl/quickstart.db', '--output', 'json');
    const runId = at(run, '/data/runId');
    const replay = j.json(0, 'replay', runId, '--db', '.agentctl/quickstart.db', '--output', 'json');
    expectAt(replay, { '/kind': 'RunOutcome', '/data/state': 'succeeded', '/data/output': at(run, '/data/output') });
    expect(at(replay, '/data/runId')).to.not.equal(runId);
    const replayed = j.json(0, 'inspect', at(replay, '/data/runId'), '--db', '.agentctl/quickstart.db', '--output', 'json');
    expectAt(replayed, { '/data/effects': [] });
    const fork = j.json(0, 'fork', runId, '--db', '.agentctl/quickstart.db', '--output', 'json');
    expectAt(fork, { '/kind': 'RunOutcome', '/data/state': 'succeeded', '/data/output': { greeting: 'hello, world' } });
  });

  it('unattended run (OPERATIONS): explicit --workspace, --db, --inputs-file and --timeout-seconds', () => {
    j.ws.write('inputs.json', JSON.stringify({ name: 'cron' }));
    const run = j.json(0, 'run', 'hello.yaml', '--workspace', '.', '--db', 'state/runtime.db', '--inputs-file', 'inputs.json', '--timeout-seconds', '600', ...JSON_OUT);
    expectAt(run, { '/data/state': 'succeeded', '/data/output': { greeting: 'hello, cron' } });
  });

  it('a run past --timeout-seconds is cancelled: exit 130, its RunOutcome still on stdout (OPERATIONS, CLI_OUTPUT)', () => {
    const run = j.json(130, 'run', 'interrupted.yaml', '--db', DB, '--timeout-seconds', '1', ...JSON_OUT);
    expectAt(run, { '/kind': 'RunOutcome', '/data/state': 'cancelled' });
    expect(at(run, '/data/runId')).to.be.a('string');
    expect(at(run, '/data/traceId')).to.be.a('string');
  });
});

describe('reference journey: first bounded agent workflow with the fake provider (FIRST_AGENT_WORKFLOW)', () => {
  const j = useJourney('first-agent');

  it('the scripted agent reads the fixture through its tool; output, report, inspection records, and a replay with no effects', () => {
    j.ws.write('artifacts/.keep', '');
    expect(j.cli('check', 'workflow.yaml').status).to.equal(0);
    expect(j.cli('plan', 'workflow.yaml').status).to.equal(0);
    const run = j.json(0, 'run', 'workflow.yaml', '--db', DB, ...JSON_OUT);
    expectAt(run, {
      '/data/state': 'succeeded',
      '/data/output': { artifact: 'artifacts/mock-report.txt', verdict: 'AGENTCTL_MOCK_FIXTURE_VERIFIED' },
    });
    expect(j.text('artifacts/mock-report.txt')).to.equal('AGENTCTL_MOCK_FIXTURE_VERIFIED');
    const runId = at(run, '/data/runId');

    const inspection = j.json(0, 'inspect', runId, '--db', DB, ...JSON_OUT);
    expectAt(inspection, { '/data/run/runId': runId, '/data/toolCalls/0/taskId': 'inspect' });
    expect(at(inspection, '/data/toolCalls')).to.have.length(1);
    expect(at(inspection, '/data/providerSessions/0/taskId')).to.equal('inspect');
    for (const task of ['inspect', 'verify', 'report']) expect(inspectedTask(inspection, task).state).to.equal('succeeded');

    const replay = j.json(0, 'replay', runId, '--db', DB, ...JSON_OUT);
    expectAt(replay, { '/data/state': 'succeeded', '/data/output': at(run, '/data/output') });
    expectAt(j.json(0, 'inspect', at(replay, '/data/runId'), '--db', DB, ...JSON_OUT), { '/data/effects': [], '/data/toolCalls': [] });
  });
});

describe('reference journey: resolve an approval (LOCAL_OPERATION, OPERATIONS)', () => {
  const j = useJourney('approval.yaml');
  const pausedRun = () => {
    const run = j.json(3, 'run', 'approval.yaml', '--db', DB, ...JSON_OUT);
    expectAt(run, { '/kind': 'RunOutcome', '/data/state': 'paused' });
    expect(j.exists('artifacts/approved.txt'), 'nothing is written before the approval').to.equal(false);
    return at(run, '/data/runId') as string;
  };

  it('a pending approval exits 3; approvals list is an array; approve then resume writes once; gc keeps the recent run', () => {
    const runId = pausedRun();
    const list = j.json(0, 'approvals', 'list', runId, '--db', DB, ...JSON_OUT);
    expectAt(list, { '/kind': 'ApprovalList', '/data/0/runId': runId, '/data/0/taskId': 'gated' });
    expect(at(list, '/data')).to.be.an('array').with.length(1);
    const approvalId = at(list, '/data/0/approvalId');
    expect(approvalId).to.be.a('string');

    const approve = j.json(0, 'approvals', 'approve', approvalId, '--db', DB, '--actor', 'operator@example.invalid', '--reason', 'Reviewed requested write', ...JSON_OUT);
    expectAt(approve, { '/kind': 'ApprovalResolution', '/data/approvalId': approvalId, '/data/status': 'approved' });

    const resumed = j.json(0, 'resume', runId, '--db', DB, ...JSON_OUT);
    expectAt(resumed, { '/kind': 'RunOutcome', '/data/runId': runId, '/data/state': 'succeeded' });
    expect(j.text('artifacts/approved.txt')).to.equal('written after approval');
    expectAt(j.json(0, 'approvals', 'list', runId, '--db', DB, ...JSON_OUT), { '/data': [] });

    // "Back up and retain state": a run younger than the retention period is kept.
    const gc = j.json(0, 'gc', '--db', DB, '--older-than-days', '30', ...JSON_OUT);
    expectAt(gc, { '/kind': 'GarbageCollection', '/data/removed': 0 });
    expectAt(j.json(0, 'inspect', runId, '--db', DB, ...JSON_OUT), { '/data/run/state': 'succeeded' });
  });

  it('reject then resume fails the run with exit 4 and the error names the run', () => {
    const runId = pausedRun();
    const approvalId = at(j.json(0, 'approvals', 'list', runId, '--db', DB, ...JSON_OUT), '/data/0/approvalId');
    const reject = j.json(0, 'approvals', 'reject', approvalId, '--db', DB, '--actor', 'operator@example.invalid', '--reason', 'Not this write', ...JSON_OUT);
    expectAt(reject, { '/kind': 'ApprovalResolution', '/data/approvalId': approvalId, '/data/status': 'rejected' });
    const failed = j.error(4, 'resume', runId, '--db', DB, ...JSON_OUT);
    expectAt(failed, { '/error/runId': runId });
    expect(j.exists('artifacts/approved.txt')).to.equal(false);
  });

  it('cancel durably requests the cancellation of a paused run', () => {
    const runId = pausedRun();
    const cancel = j.json(0, 'cancel', runId, '--db', DB, ...JSON_OUT);
    expectAt(cancel, { '/kind': 'Cancellation', '/data/runId': runId, '/data/requested': true });
    expect(j.exists('artifacts/approved.txt')).to.equal(false);
  });
});

describe('reference journey: doctor (doctor CLI tests)', () => {
  const j = useJourney('hello.yaml');

  it('a workflow with no external prerequisite is ready with no checks; no state is created', () => {
    const doctor = j.json(0, 'doctor', 'hello.yaml', '--output', 'json');
    expectAt(doctor, { '/kind': 'DoctorResult', '/data/ready': true, '/data/checks': [] });
    expect(j.exists('.agentctl')).to.equal(false);
  });

  it('a missing or non-executable host command is not ready (exit 6) and is never run', () => {
    const helper = j.ws.write('helper', '#!/bin/sh\nprintf dispatched > marker\n');
    chmodSync(helper, 0o600);
    const flow = { policy: { processAllowlist: ['helper'], approval: 'never' }, actions: { host: { kind: 'builtin.shell.exec', command: helper, args: [] } }, tasks: [{ id: 'host', uses: 'action:host' }] };
    writeFileSync(j.ws.file('workflow.json'), JSON.stringify({ apiVersion: 'agentctl.dev/v1', kind: 'Workflow', metadata: { name: 'doctor-host' }, spec: flow }));
    const blocked = j.json(6, 'doctor', 'workflow.json', '--output', 'json');
    expectAt(blocked, { '/kind': 'DoctorResult', '/data/ready': false });
    const check = (at(blocked, '/data/checks') as any[]).find((entry) => entry.check === 'process:host:command');
    expect(check?.status).to.equal('missing_or_not_executable');
    chmodSync(helper, 0o700);
    expectAt(j.json(0, 'doctor', 'workflow.json', '--output', 'json'), { '/data/ready': true });
    expect(j.exists('marker'), 'doctor never runs the command').to.equal(false);
    expect(j.exists('.agentctl')).to.equal(false);
  });
});

describe('reference journey: variable sources and explain (VARIABLES, sources CLI tests)', () => {
  const j = useJourney('sources');

  it('--var overrides files and vars in order; explain names the origins but never the values', () => {
    const run = j.json(0, 'run', 'workflow.yaml', '--db', 'state.db', '--var', 'winner="first"', '--var', 'winner="invocation"', '--output', 'json');
    expectAt(run, { '/data/output/result/winner': 'invocation', '/data/output/result/object': { inline: true }, '/data/output/result/nullable': null });
    const explanation = j.json(0, 'explain', 'workflow.yaml', '--var', 'winner="PRIVATE_VALUE_SENTINEL"', '--output', 'json');
    expect(explanation.kind).to.equal('SourceExplanation');
    const text = JSON.stringify(explanation);
    expect(text).to.contain('--var');
    expect(text).to.not.contain('PRIVATE_VALUE_SENTINEL');
  });

  it('a reserved or non-JSON --var is exit 2 before any state exists', () => {
    j.error(2, 'run', 'workflow.yaml', '--var', 'loopIndex=7', '--output', 'json');
    j.error(2, 'run', 'workflow.yaml', '--var', 'winner=not-json', '--output', 'json');
    expect(j.exists('.agentctl/runtime.db')).to.equal(false);
  });
});
