import { expect } from 'chai';
import { topologicalOrder } from '../../core/compiler/graph.js';

describe('topological order', () => {
  it('runs ready tasks in declaration order', () => {
    const result = topologicalOrder([
      { id: 'c', needs: ['a'] },
      { id: 'a', needs: [] },
      { id: 'b', needs: [] },
      { id: 'd', needs: ['b', 'c'] },
    ]);
    expect(result).to.deep.equal({ order: ['a', 'c', 'b', 'd'] });
  });

  it('is stable: the same input gives the same order', () => {
    const nodes = Array.from({ length: 50 }, (_, index) => ({ id: `t${index}`, needs: index % 3 === 0 || index === 0 ? [] : [`t${index - 1}`] }));
    expect(topologicalOrder(nodes)).to.deep.equal(topologicalOrder(nodes));
  });

  it('reports a cycle as a closed path', () => {
    const result = topologicalOrder([
      { id: 'a', needs: [] },
      { id: 'b', needs: ['d'] },
      { id: 'c', needs: ['b'] },
      { id: 'd', needs: ['c'] },
    ]);
    expect(result).to.have.property('cycle');
    const cycle = (result as { cycle: string[] }).cycle;
    expect(cycle[0]).to.equal(cycle[cycle.length - 1]);
    expect(new Set(cycle)).to.deep.equal(new Set(['b', 'c', 'd']));
  });

  it('a self-dependency is a cycle', () => {
    expect(topologicalOrder([{ id: 'a', needs: ['a'] }])).to.deep.equal({ cycle: ['a', 'a'] });
  });
});

describe('topological order at scale', () => {
  it('a cycle of 5,000 tasks is found without recursion', () => {
    const nodes = Array.from({ length: 5000 }, (_, index) => ({ id: `t${index}`, needs: [`t${(index + 1) % 5000}`] }));
    const result = topologicalOrder(nodes) as { cycle: string[] };
    expect(result.cycle).to.have.length(5001);
    expect(result.cycle[0]).to.equal(result.cycle[5000]);
  });

  it('orders a chain of 20,000 tasks and 20,000 independent ones in declaration order', () => {
    const chain = Array.from({ length: 20000 }, (_, index) => ({ id: `c${index}`, needs: index === 0 ? [] : [`c${index - 1}`] }));
    expect((topologicalOrder([...chain].reverse()) as { order: string[] }).order).to.deep.equal(chain.map((node) => node.id));
    const wide = Array.from({ length: 20000 }, (_, index) => ({ id: `w${index}`, needs: [] }));
    expect((topologicalOrder(wide) as { order: string[] }).order).to.deep.equal(wide.map((node) => node.id));
  });
});
