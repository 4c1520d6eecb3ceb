// foreach, matrix, loop, routers and sub-workflows end to end: each compiles to ordinary durable tasks, so check, plan,
// run, retry and replay see every child by id; bad constructs are refused before any run exists.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { baseEnv, parseDocument, ROOT, runCli } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome, rows, runCount, useWorkspace, workflow, type WorkflowSpec } from './helpers.js';

const assign = { set: { kind: 'builtin.assign' } };

/** The ids of a run's tasks with their states, in plan order. */
const states = (document: any) => document.data.tasks as Record<string, string>;

describe('foreach, matrix, loop, routers and sub-workflows', () => {
  const state = useWorkspace();
  const ws = () => state.ws;
  const cli = (args: string[]) => runCli([...args, '--db', ws().db, '--output', 'json'], { env: baseEnv() });
  const write = (spec: WorkflowSpec & Record<string, unknown>) => ws().write('flow.yaml', workflow(spec));
  const run = (spec: WorkflowSpec & Record<string, unknown>, exitCode = 0) => {
    const result = cli(['run', write(spec)]);
    if (exitCode === 0) return outcome(result, 0);
    expect(result.status, result.stderr).to.equal(exitCode);
    const document = parseDocument(result.stderr);
    return { ...document, code: document.diagnostics[0].code };
  };
  const check = (file: string) => runCli(['check', file, '--output', 'json'], { env: baseEnv() });
  const refused = (spec: WorkflowSpec & Record<string, unknown>, code: string) => {
    const document = errorDocument(check(write(spec)), 2);
    expect(runCount(ws().db)).to.equal(0);
    return diagnosticWithCode(document, code);
  };

  it('a matrix runs one child per cell, axes by name in declared value order, and its parent aggregates them', () => {
    const document = run({
      outputs: { results: '${{ tasks.verify.output.items }}' },
      actions: assign,
      tasks: [{ id: 'verify', uses: 'action:set', matrix: { axes: { profile: ['debug', 'release'], os: ['linux', 'macos'] }, maxItems: 4 }, with: { os: '${{ vars.matrix.os }}', profile: '${{ vars.matrix.profile }}', index: '${{ vars.matrixIndex }}' } }],
    });
    const ids = Object.keys(states(document));
    expect(ids).to.have.length(5);
    expect(ids.slice(0, 4).every((id) => /^verify--000[0-3]-[0-9a-f]{8}$/.test(id))).to.equal(true);
    expect(ids[4]).to.equal('verify');
    const items = document.data.output.results;
    expect(items.map((item: any) => [item.index, item.state, item.output.output, item.error])).to.deep.equal([
      [0, 'succeeded', { os: 'linux', profile: 'debug', index: 0 }, null],
      [1, 'succeeded', { os: 'linux', profile: 'release', index: 1 }, null],
      [2, 'succeeded', { os: 'macos', profile: 'debug', index: 2 }, null],
      [3, 'succeeded', { os: 'macos', profile: 'release', index: 3 }, null],
    ]);
    expect(items.map((item: any) => item.taskId)).to.deep.equal(ids.slice(0, 4));
    // The aggregate is pure: only the children's rows exist, no effect belongs to it.
    expect(rows(ws().db, "SELECT COUNT(*) AS n FROM effects WHERE task_id = 'verify'")).to.deep.equal([{ n: 0 }]);
  });

  it('plan shows each child with its parent and binding, and the aggregate as a pure control task', () => {
    const file = write({ actions: assign, tasks: [{ id: 'each', uses: 'action:set', foreach: { items: ['api', { name: 'worker' }], as: 'service' }, with: { service: '${{ vars.service }}', at: '${{ vars.foreachIndex }}' } }] });
    const plan = outcome(runCli(['plan', file, '--output', 'json'], { env: baseEnv() }), 0);
    const [first, second, parent] = plan.data.order.map((id: string) => plan.data.tasks[id]);
    expect(first.expansion).to.deep.equal({ parent: 'each', index: 0, bindings: { foreachIndex: 0, service: 'api' }, form: 'foreach', binding: 'api' });
    expect(parent.uses).to.deep.equal({ kind: 'aggregate', name: [first.id, second.id] });
    expect(first.input).to.deep.equal({ service: 'api', at: 0 });
    expect(second.input).to.deep.equal({ service: { name: 'worker' }, at: 1 });
    expect(parent).to.deep.include({ id: 'each', kind: 'flow', control: 'foreach aggregate', effectClass: 'pure' });
    expect(parent.policy.decision).to.equal('no_effect');
    expect(parent.needs).to.deep.equal([first.id, second.id]);
    const text = runCli(['plan', file]).stdout;
    expect(text).to.contain(`foreach child 1 of each: {"name":"worker"}`);
  });

  it('an empty axis gives an empty aggregate', () => {
    const document = run({ outputs: { items: '${{ tasks.none.output.items }}' }, actions: assign, tasks: [{ id: 'none', uses: 'action:set', matrix: { axes: { os: [] } } }] });
    expect(states(document)).to.deep.equal({ none: 'succeeded' });
    expect(document.data.output.items).to.deep.equal([]);
  });

  it('with failure: continue, a failed child is recorded in the aggregate, its siblings and the downstream task run', () => {
    const document = run(
      {
        actions: { ...assign, check: { kind: 'builtin.assert' } },
        tasks: [
          { id: 'gate', uses: 'action:check', failure: 'continue', foreach: { items: [1, 2, 3], as: 'n' }, with: { that: '${{ vars.n != 2 }}', message: 'two is refused' } },
          { id: 'after', uses: 'action:set', needs: ['gate'], with: { items: '${{ tasks.gate.output.items }}' } },
        ],
      },
    );
    const tasks = rows(ws().db, 'SELECT task_id, state FROM tasks ORDER BY position');
    expect(tasks.map((row) => row.state)).to.deep.equal(['succeeded', 'failed', 'succeeded', 'succeeded', 'succeeded']);
    const after = JSON.parse(rows(ws().db, "SELECT output_json FROM tasks WHERE task_id = 'after'")[0].output_json);
    expect(after.output.items.map((item: any) => [item.state, item.error?.code ?? null])).to.deep.equal([
      ['succeeded', null],
      ['failed', 'AGENTCTL_E_ASSERTION_FAILED'],
      ['succeeded', null],
    ]);
    expect(document.data.state).to.equal('succeeded');
  });

  it('a loop runs while its guard holds, each iteration reading the previous output; the rest are skipped', () => {
    const document = run({
      outputs: { iterations: '${{ tasks.refine.output.iterations }}', items: '${{ tasks.refine.output.items }}' },
      actions: assign,
      tasks: [{ id: 'refine', uses: 'action:set', loop: { maxIterations: 3, while: '${{ vars.loopIndex < 2 }}', initial: { value: 'seed' } }, with: { previous: '${{ vars.loopPrevious }}', iteration: '${{ vars.loopIndex }}' } }],
    });
    expect(Object.values(states(document))).to.deep.equal(['succeeded', 'succeeded', 'skipped', 'succeeded']);
    expect(document.data.output.iterations).to.equal(2);
    const [zero, one, two] = document.data.output.items;
    expect(zero.output.output).to.deep.equal({ previous: { value: 'seed' }, iteration: 0 });
    expect(one.output.output).to.deep.equal({ previous: zero.output, iteration: 1 });
    expect(two).to.deep.include({ state: 'skipped', output: null });
  });

  it('a loop whose guard (written with loop.output) still holds after maxIterations fails closed (exit 4)', () => {
    const failure = run(
      {
        actions: assign,
        tasks: [
          { id: 'spin', uses: 'action:set', loop: { maxIterations: 2, while: '${{ loop.output.output.done == false }}', initial: { output: { done: false } } }, with: { done: false } },
          { id: 'after', uses: 'action:set', needs: ['spin'] },
        ],
      },
      4,
    );
    expect(failure.code).to.equal('AGENTCTL_E_LOOP_LIMIT');
    expect(failure.error.message).to.contain('loop spin: the while condition is still true after 2 iterations');
    expect(rows(ws().db, 'SELECT state FROM tasks ORDER BY position').map((row) => row.state)).to.deep.equal(['succeeded', 'succeeded', 'failed', 'skipped']);
  });

  it('a router runs the selected destinations; the others are skipped with the decision as their output, and so are their dependents', () => {
    const spec = (selected: string) => ({
      inputs: { selected },
      outputs: { route: '${{ tasks.route.output }}', hold: '${{ tasks.hold.output }}' },
      actions: assign,
      tasks: [
        { id: 'route', uses: 'router', route: { select: '${{ inputs.selected }}', cases: [{ equals: 'ship', tasks: ['ship'] }, { equals: 1, tasks: ['one'] }], default: ['hold'] } },
        { id: 'ship', uses: 'action:set', needs: ['route'], with: { result: 'shipped' } },
        { id: 'one', uses: 'action:set', needs: ['route'] },
        { id: 'hold', uses: 'action:set', needs: ['route'], with: { result: 'held' } },
        { id: 'announce', uses: 'action:set', needs: ['ship'] },
      ],
    });
    const shipped = run(spec('ship'));
    expect(states(shipped)).to.deep.equal({ route: 'succeeded', ship: 'succeeded', one: 'skipped', hold: 'skipped', announce: 'succeeded' });
    expect(shipped.data.output.route).to.deep.equal({ selected: 'ship', matched: true, destinations: ['ship'] });
    expect(shipped.data.output.hold).to.deep.equal({ reason: 'not selected by its router', router: 'route', selected: 'ship' });
    // Case values compare as JSON: the string "1" is not the number 1, so the default is taken.
    const fallback = run(spec('1'));
    expect(states(fallback)).to.deep.equal({ route: 'succeeded', ship: 'skipped', one: 'skipped', hold: 'succeeded', announce: 'skipped' });
    expect(fallback.data.output.route).to.deep.equal({ selected: '1', matched: false, destinations: ['hold'] });
  });

  it('examples/control-flow.yaml: a sub-workflow its router did not select is skipped whole, and its id holds the decision', () => {
    const example = join(ROOT, 'examples', 'control-flow.yaml');
    const stable = outcome(cli(['run', example, '--workspace', ws().dir]), 0);
    expect(stable.data.output.summary).to.deep.equal({ text: 'release summarised' });
    expect(stable.data.output.drafts).to.equal(2);
    const beta = outcome(cli(['run', example, '--workspace', ws().dir, '--input', 'channel=beta']), 0);
    expect(beta.data.output.summary).to.deep.equal({ reason: 'not selected by its router', router: 'route', selected: 'beta' });
    const skipped = Object.entries(states(beta)).filter(([, value]) => value === 'skipped').map(([id]) => id);
    expect(skipped).to.have.length(5);
    expect(skipped[0]).to.match(/^draft--0002-/);
    expect(skipped[1]).to.match(/^summary--inputs-/);
    expect(skipped.slice(2)).to.deep.equal(['summary--write-summary', 'summary', 'report']);
  });

  describe('sub-workflows', () => {
    const definition = (tasks: unknown[], extra: Record<string, unknown> = {}) => ({
      version: '1.0.0',
      inputSchema: { type: 'object', required: ['message'], additionalProperties: false, properties: { message: { type: 'string' }, suffix: { type: 'string' } } },
      outputSchema: { type: 'object', required: ['result'], additionalProperties: false, properties: { result: { type: 'string' } } },
      inputs: { suffix: '!' },
      outputs: { result: '${{ tasks.finish.output.output.result }}' },
      tasks,
      ...extra,
    });
    const summarize = definition([
      { id: 'prepare', uses: 'action:set', with: { value: '${{ inputs.message }}', suffix: '${{ inputs.suffix }}' } },
      { id: 'finish', uses: 'action:set', needs: ['prepare'], with: { result: '${{ tasks.prepare.output.output.value }}${{ tasks.prepare.output.output.suffix }}' } },
    ]);

    it('an invocation becomes an input boundary, namespaced tasks and the invocation id as output; defaults fill the input', () => {
      const document = run({
        inputs: { message: 'durable' },
        outputs: { result: '${{ tasks.summary.output.result }}' },
        actions: assign,
        subworkflows: { summarize },
        tasks: [
          { id: 'summary', uses: 'workflow:summarize', with: { message: '${{ inputs.message }}' } },
          { id: 'after', uses: 'action:set', needs: ['summary'], with: { got: '${{ tasks.summary.output.result }}' } },
        ],
      });
      expect(document.data.output).to.deep.equal({ result: 'durable!' });
      const ids = Object.keys(states(document));
      expect(ids[0]).to.match(/^summary--inputs-[0-9a-f]{8}$/);
      expect(ids.slice(1)).to.deep.equal(['summary--prepare', 'summary--finish', 'summary', 'after']);
      const boundary = JSON.parse(rows(ws().db, 'SELECT output_json FROM tasks WHERE task_id = ?', ids[0])[0].output_json);
      expect(boundary).to.deep.equal({ suffix: '!', message: 'durable' });
    });

    it('a nested invocation flattens recursively', () => {
      const outer = definition([{ id: 'inner', uses: 'workflow:summarize', with: { message: '${{ inputs.message }}', suffix: '?' } }, { id: 'finish', uses: 'action:set', needs: ['inner'], with: { result: '${{ tasks.inner.output.result }}' } }]);
      const document = run({ outputs: { result: '${{ tasks.top.output.result }}' }, actions: assign, subworkflows: { summarize, outer }, tasks: [{ id: 'top', uses: 'workflow:outer', with: { message: 'deep' } }] });
      expect(document.data.output).to.deep.equal({ result: 'deep?' });
      expect(Object.keys(states(document))).to.include.members(['top--inner--prepare', 'top--inner--finish', 'top--inner', 'top--finish', 'top']);
    });

    it('an input that breaks the inputSchema fails at the boundary (exit 4) and none of the tasks inside runs', () => {
      const failure = run({ actions: assign, subworkflows: { summarize }, tasks: [{ id: 'summary', uses: 'workflow:summarize', with: { message: 42 } }] }, 4);
      expect(failure.code).to.equal('AGENTCTL_E_SUBWORKFLOW_INPUT_INVALID');
      expect(failure.error.message).to.contain('sub-workflow summarize@1.0.0');
      expect(rows(ws().db, 'SELECT state FROM tasks ORDER BY position').map((row) => row.state)).to.deep.equal(['failed', 'skipped', 'skipped', 'skipped']);
    });

    it('an output map that breaks the outputSchema fails the invocation (exit 4)', () => {
      const broken = definition([{ id: 'finish', uses: 'action:set', with: { result: 7 } }]);
      const failure = run({ actions: assign, subworkflows: { broken }, tasks: [{ id: 'call', uses: 'workflow:broken', with: { message: 'x' } }] }, 4);
      expect(failure.code).to.equal('AGENTCTL_E_SUBWORKFLOW_OUTPUT_INVALID');
    });

    it('a cycle of invocations is refused by check before any run (exit 2)', () => {
      const loopA = definition([{ id: 'finish', uses: 'workflow:loopB', with: { message: 'x' } }]);
      const loopB = definition([{ id: 'finish', uses: 'workflow:loopA', with: { message: 'x' } }]);
      const cycle = refused({ actions: assign, subworkflows: { loopA, loopB }, tasks: [{ id: 'go', uses: 'workflow:loopA', with: { message: 'x' } }] }, 'AGENTCTL_E_SUBWORKFLOW_INVALID');
      expect(cycle.message).to.contain('loopA → loopB → loopA');
    });

    /** Definitions d0..d(levels-1): each runs `calls` of the next (a foreach of that many items), the last one a task. */
    const chain = (levels: number, calls: number) => {
      const subworkflows: Record<string, unknown> = {};
      for (let level = 0; level < levels; level += 1) {
        const last = level === levels - 1;
        const call = last
          ? { id: 'finish', uses: 'action:set', with: { result: '${{ inputs.message }}' } }
          : { id: 'finish', uses: `workflow:d${level + 1}`, with: { message: '${{ inputs.message }}' }, ...(calls > 1 ? { foreach: { items: Array.from({ length: calls }, (_, index) => index), as: 'copy', maxItems: calls } } : {}) };
        subworkflows[`d${level}`] = definition([call], calls > 1 && !last ? { outputs: { result: 'many' } } : {});
      }
      return { actions: assign, subworkflows, tasks: [{ id: 'top', uses: 'workflow:d0', with: { message: 'x' } }] };
    };

    it('invocations nested 8 deep compile; the 9th level is refused at its uses with the chain (AGENTCTL_E_SUBWORKFLOW_DEPTH)', () => {
      outcome(check(write(chain(8, 1))), 0);
      // 16 definitions that each invoke the next twice: 163,838 tasks before this bound, refused after a few.
      const doubling = chain(16, 2);
      const deep = refused(doubling, 'AGENTCTL_E_SUBWORKFLOW_DEPTH');
      expect(deep.path).to.equal('spec.subworkflows.d7.tasks[0].uses');
      expect(deep.message).to.equal('sub-workflow invocations nest more than 8 deep: d0 → d1 → d2 → d3 → d4 → d5 → d6 → d7 → d8');
      expect(deep.help).to.contain('at most 8 levels deep');
    });

    it('a plan over 10,000 compiled tasks is refused while expanding, at the invoking task (AGENTCTL_E_PLAN_TOO_LARGE)', () => {
      // Three levels of 32 invocations each: 32,768 leaf tasks (and their boundaries) once flattened.
      const wide = refused(chain(4, 32), 'AGENTCTL_E_PLAN_TOO_LARGE');
      expect(wide.path).to.equal('spec.tasks[0]');
      expect(wide.message).to.equal('the workflow compiles to more than 10000 tasks; the limit was crossed while expanding spec.tasks[0]');
      expect(wide.line).to.be.a('number');
    });
  });

  it('retry --failed reruns the failed foreach child, the children that never started and the aggregate, reusing the rest', () => {
    const marker = ws().file('ready');
    const spec = {
      policy: { processAllowlist: ['sh'], approval: 'never' },
      actions: { probe: { kind: 'builtin.shell.exec', command: '/bin/sh', args: ['-c', 'test "$0" != b || test -f ready'] } },
      tasks: [{ id: 'probe', uses: 'action:probe', foreach: { items: ['a', 'b', 'c'], as: 'name' }, with: { args: ['${{ vars.name }}'] } }],
    };
    const file = write(spec);
    const first = cli(['run', file]);
    expect(first.status, first.stderr).to.equal(4);
    const runId = parseDocument(first.stderr).error.runId as string;
    writeFileSync(marker, '');
    const retried = outcome(cli(['retry', file, runId, '--failed']), 0);
    const ids = rows(ws().db, 'SELECT task_id FROM tasks WHERE run_id = ? ORDER BY position', runId).map((row) => row.task_id as string);
    expect(retried.data.roots).to.deep.equal([ids[1]]);
    expect(retried.data.reused).to.deep.equal([ids[0]]);
    expect(retried.data.executed).to.deep.equal([ids[1], ids[2], 'probe']);
    expect(rows(ws().db, 'SELECT task_id, state FROM tasks WHERE run_id = ? ORDER BY position', retried.data.runId).map((row) => row.state)).to.deep.equal(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
  });

  it('replay of a run with a matrix, a loop, a router and a sub-workflow copies every decision with no effect', () => {
    const file = write({
      outputs: { all: '${{ tasks.last.output }}' },
      actions: assign,
      subworkflows: { echo: { version: '0.1.0', outputs: { value: '${{ tasks.copy.output.output.value }}' }, tasks: [{ id: 'copy', uses: 'action:set', with: { value: '${{ inputs.value }}' } }], inputSchema: { type: 'object', properties: { value: {} } } } },
      tasks: [
        { id: 'cells', uses: 'action:set', matrix: { axes: { n: [1, 2] } }, with: { n: '${{ vars.matrix.n }}' } },
        { id: 'count', uses: 'action:set', loop: { maxIterations: 3, while: '${{ vars.loopIndex < 2 }}' }, with: { i: '${{ vars.loopIndex }}' } },
        { id: 'route', uses: 'router', needs: ['count'], route: { select: '${{ tasks.count.output.iterations }}', cases: [{ equals: 2, tasks: ['two'] }], default: ['other'] } },
        { id: 'two', uses: 'workflow:echo', needs: ['route', 'cells'], with: { value: '${{ tasks.cells.output.items }}' } },
        { id: 'other', uses: 'action:set', needs: ['route'] },
        { id: 'last', uses: 'action:set', needs: ['two'], with: { value: '${{ tasks.two.output.value }}' } },
      ],
    });
    const source = outcome(cli(['run', file]), 0);
    expect(source.data.output.all.output.value.map((item: any) => item.output.output.n)).to.deep.equal([1, 2]);
    const replay = outcome(cli(['replay', source.data.runId]), 0);
    expect(replay.data.output).to.deep.equal(source.data.output);
    expect(rows(ws().db, 'SELECT COUNT(*) AS n FROM effects WHERE run_id = ?', replay.data.runId)).to.deep.equal([{ n: 0 }]);
    expect(replay.data.tasks).to.deep.equal(source.data.tasks);
  });
});
