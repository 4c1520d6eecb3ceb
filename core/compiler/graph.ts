// Stable topological order: among ready tasks, the one declared first runs first.

export interface GraphNode {
  readonly id: string;
  readonly needs: readonly string[];
}

export type OrderResult = { readonly order: string[] } | { readonly cycle: string[] };

export function topologicalOrder(nodes: readonly GraphNode[]): OrderResult {
  const index = new Map(nodes.map((node, position) => [node.id, position]));
  const remaining = new Map(nodes.map((node) => [node.id, new Set(node.needs)]));
  const dependents = new Map<string, string[]>(nodes.map((node) => [node.id, []]));
  for (const node of nodes) for (const need of node.needs) dependents.get(need)?.push(node.id);

  const ready = nodes.filter((node) => node.needs.length === 0).map((node) => node.id);
  const order: string[] = [];
  while (ready.length > 0) {
    ready.sort((a, b) => index.get(a)! - index.get(b)!);
    const next = ready.shift()!;
    order.push(next);
    for (const dependent of dependents.get(next)!) {
      const waiting = remaining.get(dependent)!;
      waiting.delete(next);
      if (waiting.size === 0) ready.push(dependent);
    }
  }
  if (order.length === nodes.length) return { order };
  return { cycle: findCycle(nodes, new Set(order)) };
}

function findCycle(nodes: readonly GraphNode[], done: ReadonlySet<string>): string[] {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const state = new Map<string, 'visiting' | 'visited'>();
  const stack: string[] = [];
  const visit = (id: string): string[] | undefined => {
    state.set(id, 'visiting');
    stack.push(id);
    for (const need of byId.get(id)!.needs) {
      if (done.has(need)) continue;
      if (state.get(need) === 'visiting') return [...stack.slice(stack.indexOf(need)), need];
      if (!state.has(need)) {
        const found = visit(need);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(id, 'visited');
    return undefined;
  };
  for (const node of nodes) {
    if (done.has(node.id) || state.has(node.id)) continue;
    const cycle = visit(node.id);
    if (cycle) return cycle.reverse();
  }
  return [];
}
