// The reference's control-flow journeys (docs/guides/MATRIX_AND_FOREACH.md, BOUNDED_LOOPS.md,
// CONDITIONS_AND_ROUTERS.md and its examples/v1 matrix, loop, router, condition and sub-workflow workflows), run with
// `agentctl run FILE --db ... --output json` and read at the JSON pointers the guides document.
import { expect } from 'chai';
import { at, expectAt, inspectedTask, useJourney } from './journey-support.js';

const DB = '.agentctl/runtime.db';
const run = (j: ReturnType<typeof useJourney>, file: string) => {
  const document = j.json(0, 'run', file, '--db', DB, '--output', 'json', '--color', 'never');
  expectAt(document, { '/kind': 'RunOutcome', '/data/state': 'succeeded' });
  return document;
};

describe('reference journey: matrix and foreach (MATRIX_AND_FOREACH)', () => {
  const j = useJourney('matrix.yaml', 'foreach.yaml');

  it('a 2x2 matrix compiles to four children PARENT--INDEX-DIGEST, axes by name then value order, aggregated by index', () => {
    const results = at(run(j, 'matrix.yaml'), '/data/output/results') as any[];
    expect(results).to.have.length(4);
    const expected = [['linux', 'debug'], ['linux', 'release'], ['macos', 'debug'], ['macos', 'release']];
    results.forEach((item, index) => {
      expect(item.taskId).to.match(new RegExp(`^verify--000${index}-[0-9a-f]+$`));
      expectAt(item, { '/index': index, '/state': 'succeeded', '/error': null, '/output/output': { platform: expected[index]![0], profile: expected[index]![1], index } });
    });
    const plan = j.json(0, 'plan', 'matrix.yaml', '--output', 'json');
    for (const item of results) expectAt(plan, { [`/data/tasks/${item.taskId}/expansion/parent`]: 'verify' });
    expect(at(plan, '/data/tasks/verify')).to.be.an('object');
  });

  it('foreach binds vars.service and vars.foreachIndex per child', () => {
    const items = at(run(j, 'foreach.yaml'), '/data/output/services') as any[];
    expect(items.map((item) => item.output.output)).to.deep.equal([
      { service: 'api', position: 0 },
      { service: 'worker', position: 1 },
    ]);
    expect(items.map((item) => item.taskId)).to.satisfy((ids: string[]) => ids.every((id, index) => id.startsWith(`inspect--000${index}-`)));
  });
});

describe('reference journey: bounded loop (BOUNDED_LOOPS, examples/v1/loop.yaml)', () => {
  const j = useJourney('loop.yaml');

  it('the guard stops after two iterations; the third is skipped; loopPrevious is the previous iteration\'s whole output', () => {
    const output = at(run(j, 'loop.yaml'), '/data/output');
    expect(output.iterations).to.equal(2);
    const items = output.results as any[];
    expect(items.map((item) => item.state)).to.deep.equal(['succeeded', 'succeeded', 'skipped']);
    expectAt(items[0], { '/index': 0, '/output/output/iteration': 0, '/output/output/previous': { value: 'seed' } });
    expectAt(items[1], { '/index': 1, '/output/output/iteration': 1, '/output/output/previous': items[0].output });
    items.forEach((item, index) => expect(item.taskId).to.match(new RegExp(`^refine--000${index}-`)));
  });
});

describe('reference journey: conditions and routers (CONDITIONS_AND_ROUTERS, examples/v1/router.yaml)', () => {
  const j = useJourney('router.yaml', 'condition.yaml');

  it('the router selects ship; its output is {selected, matched, destinations}; hold is skipped with the router and value', () => {
    const document = run(j, 'router.yaml');
    expectAt(document, {
      '/data/output/selected': 'ship',
      '/data/output/decision': { selected: 'ship', matched: true, destinations: ['ship'] },
      '/data/output/ship/output/result': 'shipped',
      '/data/output/hold/router': 'route',
      '/data/output/hold/selected': 'ship',
    });
    const inspection = j.json(0, 'inspect', at(document, '/data/runId'), '--db', DB, '--output', 'json');
    expect(inspectedTask(inspection, 'hold').state).to.equal('skipped');
    expect(inspectedTask(inspection, 'ship').state).to.equal('succeeded');
  });

  it('a false when skips the task with the documented durable decision as its output', () => {
    const skipped = at(run(j, 'condition.yaml'), '/data/output/skipped');
    expectAt(skipped, {
      '/reason': 'when condition was false',
      '/condition/expression': '${{ vars.enabled == true }}',
      '/condition/result': false,
    });
    expect(at(skipped, '/condition/contextDigest')).to.match(/^sha256:/);
  });
});

describe('reference journey: reusable sub-workflow (examples/v1/subworkflow.yaml)', () => {
  const j = useJourney('subworkflow.yaml');

  it('the typed sub-workflow returns its declared output through its parent task', () => {
    const document = run(j, 'subworkflow.yaml');
    expectAt(document, { '/data/output': { result: 'durable' } });
    const inspection = j.json(0, 'inspect', at(document, '/data/runId'), '--db', DB, '--output', 'json');
    expect(inspectedTask(inspection, 'summary').state).to.equal('succeeded');
  });
});
