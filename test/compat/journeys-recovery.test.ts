// The reference's recovery journeys: terminal retry and selective repair (README, examples/devops/16-retry-repair),
// an interrupted effect reconciled by an operator (docs/guides/EFFECT_RECONCILIATION.md, LOCAL_OPERATION.md) and
// compensation (docs/guides/COMPENSATION.md, examples/v1/compensation.yaml), with the commands and flags those
// pages show, read at the JSON pointers of the reference's RetryPlan, RetryOutcome, RepairPlan, RepairOutcome,
// CompensationPlan and CompensationOutcome documents.
import { readFileSync, writeFileSync } from 'node:fs';
import { expect } from 'chai';
import { startCli } from '../support/cli.js';
import { finished, rows, waitFor } from '../cases/helpers.js';
import { at, expectAt, inspectedTask, useJourney } from './journey-support.js';

describe('reference journey: retry and selectively repair a terminal failure (16-retry-repair)', () => {
  const j = useJourney('retry.yaml', 'repaired.yaml');
  // The tutorial keeps its database beside the workflow and its reports under artifacts/.
  const STATE = ['--db', 'state.db', '--workspace', '.'];

  /** The first run: the build succeeds and writes its artifact, then the test fails (exit 4). */
  const failedSource = () => {
    const failed = j.error(4, 'run', 'retry.yaml', ...STATE, '--output', 'json', '--color', 'never');
    const runId = at(failed, '/error/runId') as string;
    expect(runId).to.be.a('string');
    expect(at(failed, '/error/traceId')).to.be.a('string');
    const inspection = j.json(0, 'inspect', runId, '--db', 'state.db', '--output', 'json', '--color', 'never');
    expect(inspectedTask(inspection, 'build').state).to.equal('succeeded');
    expect(inspectedTask(inspection, 'test').state).to.equal('failed');
    expect(j.text('artifacts/build.txt')).to.equal('built once');
    return runId;
  };

  it('retry --failed --plan reuses the build; after the fixture is restored, retry --failed runs only the test', () => {
    const source = failedSource();
    const plan = j.json(0, 'retry', 'retry.yaml', source, '--failed', '--plan', ...STATE, '--output', 'json');
    expectAt(plan, {
      '/kind': 'RetryPlan',
      '/data/compatible': true,
      '/data/sourceRunId': source,
      '/data/failedOnly': true,
      '/data/reusedTasks': ['build'],
      '/data/rerunTasks': ['test'],
      '/data/blockedReuse': [],
    });
    j.ws.write('fixtures/retry-ready.txt', 'available\n');
    const retry = j.json(0, 'retry', 'retry.yaml', source, '--failed', ...STATE, '--output', 'json');
    expectAt(retry, {
      '/kind': 'RetryOutcome',
      '/data/state': 'succeeded',
      '/data/sourceRunId': source,
      '/data/failedOnly': true,
      '/data/reusedTasks': ['build'],
      '/data/executedTasks': ['test'],
      '/data/output': { ready: 'available\n' },
    });
    expect(at(retry, '/data/runId')).to.not.equal(source);
  });

  it('repair --from test --plan reuses the unchanged build; the repair runs the corrected test; inspect shows the lineage', () => {
    const source = failedSource();
    const plan = j.json(0, 'repair', 'repaired.yaml', source, '--from', 'test', '--plan', ...STATE, '--output', 'json');
    expectAt(plan, {
      '/kind': 'RepairPlan',
      '/data/compatible': true,
      '/data/sourceRunId': source,
      '/data/repairRoots': ['test'],
      '/data/reusedTasks': ['build'],
      '/data/rerunTasks': ['test'],
      '/data/blockedReuse': [],
    });
    const repair = j.json(0, 'repair', 'repaired.yaml', source, '--from', 'test', ...STATE, '--output', 'json');
    expectAt(repair, {
      '/kind': 'RepairOutcome',
      '/data/state': 'succeeded',
      '/data/sourceRunId': source,
      '/data/reusedTasks': ['build'],
      '/data/executedTasks': ['test'],
      '/data/output': { ready: 'built once' },
    });
    const child = j.json(0, 'inspect', at(repair, '/data/runId'), '--db', 'state.db', '--output', 'json');
    expectAt(child, { '/data/run/sourceRunId': source, '/data/run/mode': 'repair' });
    expect(inspectedTask(child, 'build').disposition).to.equal('reused');
    expect(inspectedTask(child, 'test').disposition).to.equal('executed');
  });

  it('a repair plan whose reused build changed is blocked: exit 3, compatible false, blockedReuse names the build', () => {
    const source = failedSource();
    writeFileSync(j.ws.file('repaired.yaml'), readFileSync(j.ws.file('repaired.yaml'), 'utf8').replace('content: built once', 'content: built twice'));
    const plan = j.json(3, 'repair', 'repaired.yaml', source, '--from', 'test', '--plan', ...STATE, '--output', 'json');
    expectAt(plan, { '/kind': 'RepairPlan', '/data/compatible': false, '/data/blockedReuse/0/taskId': 'build' });
    expect(at(plan, '/data/blockedReuse/0/message')).to.be.a('string');
  });
});

describe('reference journey: compensate applied effects (COMPENSATION, examples/v1/compensation.yaml)', () => {
  const j = useJourney('compensation.yaml');
  const DB = '.agentctl/runtime.db';

  it('plan, compensate, and a second plan that finds everything already compensated; the source records the reconciliation', () => {
    const failed = j.error(4, 'run', 'compensation.yaml', '--db', DB, '--output', 'json', '--color', 'never');
    const source = at(failed, '/error/runId') as string;
    expect(j.text('artifacts/resource.txt')).to.equal('provisioned');

    const plan = j.json(0, 'compensate', source, '--db', DB, '--plan', '--output', 'json');
    expectAt(plan, {
      '/kind': 'CompensationPlan',
      '/data/sourceRunId': source,
      '/data/executable': true,
      '/data/tasks/0/sourceTaskId': 'provision',
      '/data/blocked': [],
      '/data/alreadyCompensatedEffects': [],
    });
    expect(at(plan, '/data/tasks')).to.have.length(1);
    expect(at(plan, '/data/tasks/0/compensationTaskId')).to.be.a('string');
    expect(at(plan, '/data/tasks/0/sourceEffectIds')).to.have.length(1);
    expect(j.text('artifacts/resource.txt'), '--plan changes nothing').to.equal('provisioned');

    const compensation = j.json(0, 'compensate', source, '--db', DB, '--output', 'json');
    expectAt(compensation, {
      '/kind': 'CompensationOutcome',
      '/data/sourceRunId': source,
      '/data/state': 'succeeded',
      '/data/compensatedTasks': ['provision'],
      '/data/failedTasks': [],
      '/data/blocked': [],
    });
    expect(j.text('artifacts/resource.txt')).to.equal('compensated');

    const again = j.json(0, 'compensate', source, '--db', DB, '--plan', '--output', 'json');
    expectAt(again, { '/data/tasks': [], '/data/alreadyCompensatedEffects': at(plan, '/data/tasks/0/sourceEffectIds') });

    const inspection = j.json(0, 'inspect', source, '--db', DB, '--output', 'json');
    expectAt(inspection, { '/data/run/state': 'failed', '/data/effectReconciliations/0/status': 'compensated' });
    const compensationRun = j.json(0, 'inspect', at(compensation, '/data/runId'), '--db', DB, '--output', 'json');
    expectAt(compensationRun, { '/data/run/sourceRunId': source });
  });
});

describe('reference journey: reconcile an uncertain effect (EFFECT_RECONCILIATION, LOCAL_OPERATION "Interrupt safely")', () => {
  const j = useJourney('interrupted.yaml');
  const DB = '.agentctl/runtime.db';

  it('SIGTERM after dispatch exits 130 and leaves the effect uncertain; resume refuses it (exit 3); reconciled not-applied, resume runs it again', async () => {
    const child = startCli(['run', 'interrupted.yaml', '--db', DB, '--output', 'json', '--color', 'never'], { cwd: j.ws.dir });
    const done = finished(child);
    // Only to know when to interrupt: the effect has been dispatched (agentctl's own table, not a compatibility claim).
    await waitFor('the append effect to start', () => rows(j.ws.file(DB), `SELECT state FROM effects WHERE state = 'started'`).length === 1);
    child.kill('SIGTERM');
    const result = await done;
    expect(result.status, result.stderr).to.equal(130);
    const runId = rows(j.ws.file(DB), 'SELECT id FROM runs')[0].id as string;

    const listed = j.json(0, 'effects', '--db', DB, 'list', runId, '--output', 'json');
    expectAt(listed, { '/kind': 'EffectList', '/data/runId': runId, '/data/effects/0/request/taskId': 'append', '/data/effects/0/status': 'uncertain' });
    const effectId = at(listed, '/data/effects/0/request/id') as string;
    expectAt(j.json(0, 'effects', '--db', DB, 'inspect', effectId, '--output', 'json'), { '/kind': 'EffectInspection', '/data/effect/request/id': effectId, '/data/reconciliations': [] });
    expectAt(j.error(3, 'resume', runId, '--db', DB, '--output', 'json'), { '/error/runId': runId });

    // The operator checks the workspace: the line was never appended.
    expect(j.text('out.txt')).to.equal(null);
    j.ws.write('evidence.json', JSON.stringify({ checked: 'out.txt', found: false }));
    const reconciled = j.json(0, 'effects', '--db', DB, 'reconcile', effectId, '--status', 'not-applied', '--actor', 'operator-name', '--reason', 'out.txt has no appended line', '--evidence-file', 'evidence.json', '--output', 'json');
    expect(reconciled.kind).to.equal('EffectReconciliation');
    const inspected = j.json(0, 'effects', '--db', DB, 'inspect', effectId, '--output', 'json');
    expectAt(inspected, { '/data/effectiveReconciliation/status': 'not_applied', '/data/effectiveReconciliation/actor': 'operator-name', '/data/effectiveReconciliation/evidence': { checked: 'out.txt', found: false } });

    j.ws.write('go', '');
    expectAt(j.json(0, 'resume', runId, '--db', DB, '--output', 'json', '--color', 'never'), { '/data/runId': runId, '/data/state': 'succeeded' });
    expect(j.text('out.txt')).to.equal('appended\n');
  });
});
