// Stable topological order: among ready tasks, the one declared first runs first. Iterative throughout, so a long
// chain or a cycle of thousands of tasks is an answer, never a stack overflow.

export interface GraphNode {
  readonly id: string;
  readonly needs: readonly string[];
}

export type OrderResult = { readonly order: string[] } | { readonly cycle: string[] };

export function topologicalOrder(nodes: readonly GraphNode[]): OrderResult {
  const index = new Map(nodes.map((node, position) => [node.id, position]));
  const remaining = nodes.map((node) => new Set(node.needs).size);
  const dependents: number[][] = nodes.map(() => []);
  nodes.forEach((node, position) => {
    for (const need of new Set(node.needs)) {
      const from = index.get(need);
      if (from === undefined) remaining[position]! -= 1;
      else dependents[from]!.push(position);
    }
  });
  // Ready tasks by declaration position: a binary heap keeps each step O(log n) however wide the graph is.
  const ready = new MinHeap();
  remaining.forEach((count, position) => count === 0 && ready.push(position));
  const order: string[] = [];
  for (let next = ready.pop(); next !== undefined; next = ready.pop()) {
    order.push(nodes[next]!.id);
    for (const dependent of dependents[next]!) {
      remaining[dependent]! -= 1;
      if (remaining[dependent] === 0) ready.push(dependent);
    }
  }
  if (order.length === nodes.length) return { order };
  return { cycle: findCycle(nodes, index, new Set(order)) };
}

/** A closed path `a → b → … → a` among the tasks that never became ready, found by an iterative depth-first walk. */
function findCycle(nodes: readonly GraphNode[], index: ReadonlyMap<string, number>, done: ReadonlySet<string>): string[] {
  const state = new Map<string, 'visiting' | 'visited'>();
  for (const start of nodes) {
    if (done.has(start.id) || state.has(start.id)) continue;
    const path: string[] = [start.id];
    const cursors: number[] = [0];
    state.set(start.id, 'visiting');
    while (path.length > 0) {
      const id = path[path.length - 1]!;
      const needs = nodes[index.get(id)!]!.needs;
      const cursor = cursors[cursors.length - 1]!;
      if (cursor >= needs.length) {
        state.set(id, 'visited');
        path.pop();
        cursors.pop();
        continue;
      }
      cursors[cursors.length - 1] = cursor + 1;
      const need = needs[cursor]!;
      if (done.has(need) || !index.has(need)) continue;
      if (state.get(need) === 'visiting') return [...path.slice(path.indexOf(need)), need].reverse();
      if (!state.has(need)) {
        state.set(need, 'visiting');
        path.push(need);
        cursors.push(0);
      }
    }
  }
  return [];
}

class MinHeap {
  readonly #items: number[] = [];

  push(value: number): void {
    const items = this.#items;
    items.push(value);
    for (let child = items.length - 1; child > 0; ) {
      const parent = (child - 1) >> 1;
      if (items[parent]! <= value) break;
      items[child] = items[parent]!;
      items[parent] = value;
      child = parent;
    }
  }

  pop(): number | undefined {
    const items = this.#items;
    if (items.length === 0) return undefined;
    const top = items[0]!;
    const last = items.pop()!;
    if (items.length > 0) {
      items[0] = last;
      for (let parent = 0; ; ) {
        const left = parent * 2 + 1;
        const right = left + 1;
        let smallest = parent;
        if (left < items.length && items[left]! < items[smallest]!) smallest = left;
        if (right < items.length && items[right]! < items[smallest]!) smallest = right;
        if (smallest === parent) break;
        [items[parent], items[smallest]] = [items[smallest]!, items[parent]!];
        parent = smallest;
      }
    }
    return top;
  }
}
