// Journeys 5-7: an approval resolved and resumed across containers, then retried and repaired without a second model
// request; compensation of a failed run; and recovery from /state alone once the workflow's files are gone.
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { DB } from './context.mjs';
import { effectsOf, inspect } from './journeys-runs.mjs';

const RUN = (file) => ['run', file, '--workspace', '/workspace', ...DB];

/** Runs a workflow that pauses for one approval (exit 3) and approves it from another container; returns the run id. */
async function pauseAndApprove(t, m, file) {
  const paused = await t.cli(m, RUN(file), { exit: 3, kind: 'RunOutcome' });
  assert.equal(paused.data.state, 'paused');
  const runId = paused.data.runId;
  const pending = await t.cli(m, ['approvals', 'list', runId, ...DB], { kind: 'ApprovalList' });
  assert.equal(pending.data.length, 1, JSON.stringify(pending.data));
  const approval = pending.data[0];
  const approved = await t.cli(m, ['approvals', 'approve', approval.approvalId, ...DB, '--actor', 'acceptance-operator', '--reason', 'reviewed in the gate'], { kind: 'ApprovalResolution' });
  assert.equal(approved.data.status, 'approved');
  return runId;
}

export const approvalAcrossContainers = {
  title: 'approval across containers: run pauses (3), approve, resume; retry --failed and repair reuse the draft (no second model request); artifacts verify and export',
  async run(t) {
    const m = t.mounts('approval');
    const runId = await pauseAndApprove(t, m, '/config/approval.yaml');
    assert.equal(m.text('artifacts', 'published.txt'), null, 'nothing is published before the approval');

    // The third container resumes: the publication happens, then the check fails on the missing readiness file.
    const resumed = await t.cli(m, ['resume', runId, ...DB], { exit: 4, kind: 'Error' });
    assert.equal(resumed.error.runId, runId);
    assert.equal(m.text('artifacts', 'published.txt'), 'RELEASE_NOTE_DRAFT');
    const source = await inspect(t, m, runId);
    assert.deepEqual(source.data.tasks.map((task) => [task.taskId, task.state]), [['draft', 'succeeded'], ['publish', 'succeeded'], ['verify', 'failed']]);

    writeFileSync(m.file('workspace', 'ready.txt'), 'ready\n');
    const retried = await t.cli(m, ['retry', '/config/approval.yaml', runId, '--failed', ...DB], { kind: 'RetryOutcome' });
    assert.equal(retried.data.state, 'succeeded');
    assert.deepEqual(retried.data.reusedTasks, ['draft', 'publish']);
    assert.deepEqual(retried.data.executedTasks, ['verify']);
    assert.deepEqual(retried.data.output, { draft: 'RELEASE_NOTE_DRAFT', checked: 'ready\n' });
    assert.deepEqual(effectsOf(await inspect(t, m, retried.data.runId)), [['verify', 'filesystem.read', 'succeeded']]);

    const repaired = await t.cli(m, ['repair', '/config/approval-repaired.yaml', runId, '--from', 'verify', ...DB], { kind: 'RepairOutcome' });
    assert.equal(repaired.data.state, 'succeeded');
    assert.deepEqual(repaired.data.reusedTasks, ['draft', 'publish']);
    assert.deepEqual(repaired.data.output, { draft: 'RELEASE_NOTE_DRAFT', checked: 'RELEASE_NOTE_DRAFT' });
    assert.deepEqual(effectsOf(await inspect(t, m, repaired.data.runId)), [['verify', 'filesystem.read', 'succeeded']]);

    const published = source.data.artifacts.find((artifact) => artifact.taskId === 'publish');
    assert.ok(published, `the publication is an artifact: ${JSON.stringify(source.data.artifacts)}`);
    const verified = await t.cli(m, ['artifacts', 'verify', '--all', ...DB], { kind: 'ArtifactVerification' });
    assert.equal(verified.data.valid, true, JSON.stringify(verified.data));
    const exported = await t.cli(m, ['artifacts', 'export', published.digest, '/artifacts/exported.txt', ...DB], { kind: 'ArtifactExport' });
    assert.equal(exported.data.digest, published.digest);
    assert.equal(m.text('artifacts', 'exported.txt'), 'RELEASE_NOTE_DRAFT');
  },
};

export const compensation = {
  title: 'compensation of a failed run in a container, and the reconciliation it records',
  async run(t) {
    const m = t.mounts('compensation');
    const failed = await t.cli(m, RUN('/config/workflow.yaml'), { exit: 4, kind: 'Error' });
    const source = failed.error.runId;
    assert.equal(m.text('artifacts', 'resource.txt'), 'provisioned');

    const plan = await t.cli(m, ['compensate', source, '--plan', ...DB], { kind: 'CompensationPlan' });
    assert.equal(plan.data.executable, true);
    assert.deepEqual(plan.data.tasks.map((task) => task.sourceTaskId), ['provision']);
    const outcome = await t.cli(m, ['compensate', source, ...DB], { kind: 'CompensationOutcome' });
    assert.equal(outcome.data.state, 'succeeded');
    assert.deepEqual(outcome.data.compensatedTasks, ['provision']);
    assert.equal(m.text('artifacts', 'resource.txt'), 'compensated');

    const inspection = await inspect(t, m, source);
    assert.equal(inspection.data.run.state, 'failed');
    assert.deepEqual(
      inspection.data.effectReconciliations.map((entry) => [entry.status, entry.compensationRunId]),
      [['compensated', outcome.data.runId]],
    );
  },
};

export const recoveryFromState = {
  title: 'recovery from /state alone: workflow, vars file and instructions deleted on the host; resume and replay still work',
  async run(t) {
    const m = t.mounts('recovery');
    const runId = await pauseAndApprove(t, m, '/config/workflow.yaml');
    for (const [mount, path] of [['config', 'workflow.yaml'], ['config', 'vars.yaml'], ['workspace', 'instructions.md']]) rmSync(m.file(mount, path));

    const resumed = await t.cli(m, ['resume', runId, ...DB], { kind: 'RunOutcome' });
    assert.equal(resumed.data.state, 'succeeded');
    const output = { audience: 'release managers', summary: 'BRIEF_WRITTEN' };
    assert.deepEqual(resumed.data.output, output);
    assert.equal(m.text('artifacts', 'brief.txt'), 'release managers: BRIEF_WRITTEN\n');

    const replay = await t.cli(m, ['replay', runId, ...DB], { kind: 'RunOutcome' });
    assert.equal(replay.data.state, 'succeeded');
    assert.deepEqual(replay.data.output, output);
    assert.deepEqual((await inspect(t, m, replay.data.runId)).data.effects, []);
  },
};
