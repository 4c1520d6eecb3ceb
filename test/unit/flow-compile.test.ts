// The compiler's refusals of foreach, matrix, loop, router and sub-workflow constructs, each with its code and path.
import { expect } from 'chai';
import { stringify } from 'yaml';
import { AgentctlError, type Diagnostic } from '@agentctl/sdk';
import { compileText } from '../../core/compiler/compile.js';
import { matrixCells } from '../../core/compiler/expand.js';
import { composeHost } from '../../core/cli/composition.js';

const host = composeHost();
const assign = { set: { kind: 'builtin.assign' } };

async function diagnosticsOf(spec: Record<string, unknown>): Promise<Diagnostic[]> {
  try {
    await compileText(host, 'w.yaml', stringify({ apiVersion: 'agentctl.dev/v1', kind: 'Workflow', metadata: { name: 'flow' }, spec }));
  } catch (error) {
    expect(error).to.be.instanceOf(AgentctlError);
    return (error as AgentctlError).diagnostics;
  }
  throw new Error('expected the document to be rejected');
}

/** The diagnostic with `code` (asserted to exist). */
async function refused(spec: Record<string, unknown>, code: string): Promise<Diagnostic> {
  const diagnostics = await diagnosticsOf(spec);
  const found = diagnostics.find((item) => item.code === code);
  expect(found, JSON.stringify(diagnostics)).to.not.equal(undefined);
  return found!;
}

const definition = (tasks: unknown[]) => ({ version: '1.0.0', inputSchema: { type: 'object', properties: { message: { type: 'string' } } }, outputs: {}, tasks });

describe('compiling foreach, matrix, loop, routers and sub-workflows', () => {
  it('matrix cells: axes by name, values in declared order, the first axis outermost; no axis or an empty axis gives none', () => {
    expect(matrixCells({ b: [1, 2], a: ['x', 'y'] })).to.deep.equal([
    { a: 'x', b: 1 },
    { a: 'x', b: 2 },
    { a: 'y', b: 1 },
    { a: 'y', b: 2 },
    ]);
    expect(matrixCells({})).to.deep.equal([]);
    expect(matrixCells({ a: [1], b: [] })).to.deep.equal([]);
  });

  it('a child id is stable: the parent, the position and a digest of the binding', async () => {
    const spec = { actions: assign, tasks: [{ id: 'each', uses: 'action:set', foreach: { items: ['api'] } }] };
    const text = stringify({ apiVersion: 'agentctl.dev/v1', kind: 'Workflow', metadata: { name: 'flow' }, spec });
    const [first, second] = await Promise.all([compileText(host, 'w.yaml', text), compileText(host, 'w.yaml', text)]);
    expect(first.plan.tasks.map((task) => task.id)).to.deep.equal(second.plan.tasks.map((task) => task.id));
    expect(first.plan.tasks[0]!.id).to.match(/^each--0000-[0-9a-f]{8}$/);
  });

  it('an unknown definition gets a suggestion; an undeclared sub-workflow input is named with its path', async () => {
    const summarize = definition([{ id: 'finish', uses: 'action:set' }]);
    const unknown = await refused({ actions: assign, subworkflows: { summarize }, tasks: [{ id: 'go', uses: 'workflow:summarise' }] }, 'AGENTCTL_E_UNKNOWN_ACTION');
    expect(unknown.help).to.contain('did you mean workflow:summarize?');
    const typo = definition([{ id: 'finish', uses: 'action:set', with: { result: '${{ inputs.mesage }}' } }]);
    const reference = await refused({ actions: assign, subworkflows: { typo }, tasks: [{ id: 'go', uses: 'workflow:typo' }] }, 'AGENTCTL_E_TEMPLATE_REFERENCE');
    expect(reference).to.include({ path: 'spec.subworkflows.typo.tasks[0].with.result' });
    expect(reference.message).to.contain('is not declared in the inputSchema or inputs of sub-workflow typo');
    const version = await refused({ actions: assign, subworkflows: { bad: { ...typo, version: 'one' } }, tasks: [{ id: 'go', uses: 'workflow:bad' }] }, 'AGENTCTL_E_SCHEMA');
    expect(version.path).to.equal('spec.subworkflows.bad.version');
  });

  it('a local id that collides with a namespaced one is refused', async () => {
    const inner = definition([{ id: 'step', uses: 'action:set' }]);
    const collision = await refused({ actions: assign, subworkflows: { inner }, tasks: [{ id: 'call', uses: 'workflow:inner' }, { id: 'call--step', uses: 'action:set' }] }, 'AGENTCTL_E_DUPLICATE_TASK');
    expect(collision.message).to.contain('"call--step"');
  });

  it('foreach with matrix, loop with when, and a var that shadows a binding', async () => {
    await refused({ actions: assign, tasks: [{ id: 'a', uses: 'action:set', foreach: { items: [1] }, matrix: { axes: { x: [1] } } }] }, 'AGENTCTL_E_EXPANSION_INVALID');
    const when = await refused({ inputs: { on: true }, actions: assign, tasks: [{ id: 'a', uses: 'action:set', when: '${{ inputs.on }}', loop: { maxIterations: 2, while: '${{ vars.loopIndex < 1 }}' } }] }, 'AGENTCTL_E_EXPANSION_INVALID');
    expect(when.path).to.equal('spec.tasks[0].when');
    const shadow = await refused({ actions: assign, tasks: [{ id: 'a', uses: 'action:set', vars: { matrix: 1 }, matrix: { axes: { x: [1] } } }] }, 'AGENTCTL_E_EXPANSION_INVALID');
    expect(shadow.path).to.equal('spec.tasks[0].vars.matrix');
  });

  it('more cells than maxItems, more children than the maxExpansionItems budget, more iterations than maxLoopIterations', async () => {
    const cells = await refused({ actions: assign, tasks: [{ id: 'a', uses: 'action:set', matrix: { axes: { x: [1, 2, 3], y: [1, 2] }, maxItems: 5 } }] }, 'AGENTCTL_E_EXPANSION_LIMIT');
    expect(cells.message).to.contain('6 cells, more than its maxItems (5)');
    const items = await refused({ runtime: { budgets: { maxExpansionItems: 2 } }, actions: assign, tasks: [{ id: 'a', uses: 'action:set', foreach: { items: [1, 2, 3] } }] }, 'AGENTCTL_E_BUDGET_STATIC');
    expect(items.path).to.equal('spec.runtime.budgets.maxExpansionItems');
    const loops = await refused({ runtime: { budgets: { maxLoopIterations: 3 } }, actions: assign, tasks: [{ id: 'a', uses: 'action:set', loop: { maxIterations: 4, while: '${{ vars.loopIndex < 9 }}' } }] }, 'AGENTCTL_E_BUDGET_STATIC');
    expect(loops.message).to.contain('4 iterations');
    const [large] = await diagnosticsOf({ actions: assign, tasks: [{ id: 'a', uses: 'action:set', foreach: { items: [1], maxItems: 257 } }] });
    expect(large!.path).to.equal('spec.tasks[0].foreach.maxItems');
  });

  it('a router destination that does not need the router, a duplicate destination or case, an unknown destination, an interpolated selector', async () => {
    const base = (route: Record<string, unknown>, needs: string[] = ['route']) => ({
      inputs: { pick: 'a' },
      actions: assign,
      tasks: [
        { id: 'route', uses: 'router', route },
        { id: 'a', uses: 'action:set', needs },
        { id: 'b', uses: 'action:set', needs: ['route'] },
      ],
  });
    const select = '${{ inputs.pick }}';
    const needs = await refused(base({ select, cases: [{ equals: 'a', tasks: ['a'] }] }, []), 'AGENTCTL_E_ROUTER_INVALID');
    expect(needs.message).to.contain('which does not list route in needs');
    await refused(base({ select, cases: [{ equals: 'a', tasks: ['a'] }], default: ['a'] }), 'AGENTCTL_E_ROUTER_INVALID');
    await refused(base({ select, cases: [{ equals: 'a', tasks: ['a'] }, { equals: 'a', tasks: ['b'] }] }), 'AGENTCTL_E_ROUTER_INVALID');
    const unknown = await refused(base({ select, cases: [{ equals: 'a', tasks: ['c'] }] }), 'AGENTCTL_E_ROUTER_INVALID');
    expect(unknown.path).to.equal('spec.tasks[0].route.cases[0].tasks[0]');
    const text = await refused(base({ select: 'pick ${{ inputs.pick }}', cases: [{ equals: 'a', tasks: ['a'] }] }), 'AGENTCTL_E_TEMPLATE_SYNTAX');
    expect(text.path).to.equal('spec.tasks[0].route.select');
    await refused({ actions: assign, tasks: [{ id: 'r', uses: 'router' }] }, 'AGENTCTL_E_ROUTER_INVALID');
  });
});
