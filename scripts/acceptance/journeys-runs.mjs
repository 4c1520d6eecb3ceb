// Journeys 1-4: the credential-free agent workflow and its durable inspection, its recorded replay, a parallel
// workflow's ordered commit, and selective repair against the mounted state.
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { DB } from './context.mjs';

const RUN = (file) => ['run', file, '--workspace', '/workspace', ...DB];

/** `[taskId, operation, state]` of each effect of an inspected run, in recorded order. */
export const effectsOf = (inspection) => inspection.data.effects.map((effect) => [effect.taskId, effect.operation, effect.state]);

/** A run's inspection, from a container of its own. */
export const inspect = (t, m, runId) => t.cli(m, ['inspect', runId, ...DB], { kind: 'RunInspection' });

export const mockToolAgent = {
  title: 'mock-tool agent workflow: report in /artifacts; inspect from a second container shows the tool call, effects, trace id',
  async run(t) {
    const m = t.mounts('mock-tool');
    const run = await t.cli(m, RUN('/config/workflow.yaml'), { kind: 'RunOutcome' });
    assert.equal(run.data.state, 'succeeded');
    assert.deepEqual(run.data.output, { answer: 'SERVICE_FIXTURE_READ', report: '/artifacts/report.txt' });
    assert.equal(m.text('artifacts', 'report.txt'), 'marker: SERVICE_FIXTURE_READ\n');
    const owner = statSync(m.file('artifacts', 'report.txt'));
    assert.deepEqual([owner.uid, owner.gid], [65532, 65532], 'the report is written by the image user');

    const inspection = await inspect(t, m, run.data.runId);
    assert.equal(inspection.data.run.state, 'succeeded');
    assert.match(inspection.data.run.traceId, /^[0-9a-f]{32}$/);
    assert.equal(inspection.data.run.traceId, run.data.traceId);
    assert.deepEqual(
      inspection.data.toolCalls.map((call) => [call.taskId, call.toolId, call.status]),
      [['inspect', 'read_service', 'succeeded']],
    );
    assert.deepEqual(effectsOf(inspection), [
      ['inspect', 'model.request', 'succeeded'],
      ['inspect', 'tool.call', 'succeeded'],
      ['inspect', 'model.request', 'succeeded'],
      ['report', 'filesystem.write', 'succeeded'],
    ]);
    t.shared.mockTool = { m, run };
  },
};

export const recordedReplay = {
  title: 'recorded replay of that run under --network none: same outputs, zero effects',
  async run(t) {
    const source = t.shared.mockTool;
    assert.ok(source, 'needs the run of the mock-tool journey, which failed');
    const { m, run } = source;
    const before = m.text('artifacts', 'report.txt');
    const replay = await t.cli(m, ['replay', run.data.runId, ...DB], { kind: 'RunOutcome', network: 'none' });
    assert.equal(replay.data.state, 'succeeded');
    assert.notEqual(replay.data.runId, run.data.runId);
    assert.deepEqual(replay.data.output, run.data.output);
    const replayed = await inspect(t, m, replay.data.runId);
    assert.equal(replayed.data.run.mode, 'replay');
    assert.deepEqual(replayed.data.effects, []);
    assert.deepEqual(replayed.data.toolCalls, []);
    assert.equal(m.text('artifacts', 'report.txt'), before, 'a replay writes nothing');
  },
};

export const parallelCommit = {
  title: 'parallel workflow: three agents in one wave, results committed in declaration order; replay has zero effects',
  async run(t) {
    const m = t.mounts('parallel');
    const run = await t.cli(m, RUN('/config/workflow.yaml'), { kind: 'RunOutcome' });
    assert.equal(run.data.state, 'succeeded');
    const answers = { slow: 'SLOW', middle: 'MIDDLE', fast: 'FAST' };
    assert.deepEqual(run.data.output, { answers });

    const inspection = await inspect(t, m, run.data.runId);
    const requests = inspection.data.effects.map((effect) => ({ task: effect.taskId, start: Date.parse(effect.startedAt), end: Date.parse(effect.completedAt) }));
    assert.deepEqual(requests.map((request) => request.task).sort(), ['fast', 'middle', 'slow']);
    // They ran at once: the slow request started before the fast one ended, and ended last.
    const [slow, fast] = ['slow', 'fast'].map((task) => requests.find((request) => request.task === task));
    assert.ok(slow.start <= fast.end && fast.end < slow.end, `the requests did not overlap: ${JSON.stringify(requests)}`);
    const committed = inspection.data.audit.filter((event) => event.type === 'task.succeeded').map((event) => event.taskId);
    assert.deepEqual(committed, ['slow', 'middle', 'fast']);

    const replay = await t.cli(m, ['replay', run.data.runId, ...DB], { kind: 'RunOutcome' });
    assert.deepEqual(replay.data.output, run.data.output);
    assert.deepEqual((await inspect(t, m, replay.data.runId)).data.effects, []);
  },
};

export const selectiveRepair = {
  title: 'selective repair: a failed run, repair --plan reuses the good task, the repair succeeds reusing it',
  async run(t) {
    const m = t.mounts('repair');
    const failed = await t.cli(m, RUN('/config/failing.yaml'), { exit: 4, kind: 'Error' });
    const source = failed.error.runId;
    assert.match(source, /^run_/);
    assert.equal(m.text('artifacts', 'build.txt'), 'built once');

    const repair = ['repair', '/config/repaired.yaml', source, '--from', 'test', ...DB];
    const plan = await t.cli(m, [...repair, '--plan'], { kind: 'RepairPlan' });
    assert.equal(plan.data.compatible, true);
    assert.deepEqual(plan.data.reusedTasks, ['build']);
    assert.deepEqual(plan.data.rerunTasks, ['test']);
    assert.deepEqual(plan.data.blockedReuse, []);

    const repaired = await t.cli(m, repair, { kind: 'RepairOutcome' });
    assert.equal(repaired.data.state, 'succeeded');
    assert.equal(repaired.data.sourceRunId, source);
    assert.deepEqual(repaired.data.reusedTasks, ['build']);
    assert.deepEqual(repaired.data.executedTasks, ['test']);
    assert.deepEqual(repaired.data.output, { ready: 'built once' });
    const child = await inspect(t, m, repaired.data.runId);
    assert.deepEqual(effectsOf(child), [['test', 'filesystem.read', 'succeeded']]);
  },
};
