// The task graph: an SVG with one column per layer (a task's layer is the length of the longest chain of needs before
// it) and an edge from each need to the task that needs it. Beyond GRAPH_LIMIT tasks a drawing is unreadable and
// heavy, so the page lists the layers' sizes instead; the tasks table always names every task's needs.
import type { RunInspection } from '@agentctl/sdk';
import { esc, table } from './html.js';
import { needsOf } from './facts.js';

/** The most tasks the graph draws. */
export const GRAPH_LIMIT = 150;

const NODE_WIDTH = 150;
const NODE_HEIGHT = 30;
const COLUMN_GAP = 50;
const ROW_GAP = 12;
const LABEL_CHARS = 18;

/** Each task's layer: 0 without needs, else one more than its deepest need (needs outside the run are ignored). */
export function layersOf(ids: readonly string[], needs: Map<string, string[]>): Map<string, number> {
  const known = new Set(ids);
  const layer = new Map<string, number>();
  const visiting = new Set<string>();
  const depth = (id: string): number => {
    const found = layer.get(id);
    if (found !== undefined) return found;
    // A cycle cannot be recorded (the compiler refuses one); should one appear, it is cut here.
    if (visiting.has(id)) return 0;
    visiting.add(id);
    let deepest = -1;
    for (const need of needs.get(id) ?? []) if (known.has(need)) deepest = Math.max(deepest, depth(need));
    visiting.delete(id);
    layer.set(id, deepest + 1);
    return deepest + 1;
  };
  // Iterative order over ids keeps the recursion shallow for typical plans; a chain as long as the plan still works.
  for (const id of ids) depth(id);
  return layer;
}

export function renderGraph(inspection: RunInspection): string {
  const ids = inspection.tasks.map((task) => task.taskId);
  if (ids.length === 0) return '<p class="none">No tasks.</p>';
  const needs = needsOf(inspection);
  const layers = layersOf(ids, needs);
  const columns: string[][] = [];
  for (const id of ids) (columns[layers.get(id)!] ??= []).push(id);
  const edgeCount = ids.reduce((sum, id) => sum + (needs.get(id) ?? []).filter((need) => layers.has(need)).length, 0);
  const summary = `${ids.length} tasks in ${columns.length} layers, ${edgeCount} needs`;
  if (ids.length > GRAPH_LIMIT) {
    return [
      `<p>${esc(summary)}. The graph is not drawn beyond ${GRAPH_LIMIT} tasks; the layers' sizes follow, and the tasks table names each task's needs.</p>`,
      table('Layers of the task graph', ['layer', 'tasks', 'first tasks'], columns.map((column, index) => [String(index), String(column.length), esc(column.slice(0, 5).join(', ') + (column.length > 5 ? ', …' : ''))])),
    ].join('\n');
  }
  const state = new Map(inspection.tasks.map((task) => [task.taskId, task.state]));
  const position = new Map<string, { x: number; y: number }>();
  columns.forEach((column, layer) => column.forEach((id, row) => position.set(id, { x: 10 + layer * (NODE_WIDTH + COLUMN_GAP), y: 10 + row * (NODE_HEIGHT + ROW_GAP) })));
  const width = 20 + columns.length * NODE_WIDTH + (columns.length - 1) * COLUMN_GAP;
  const height = 20 + Math.max(...columns.map((column) => column.length)) * (NODE_HEIGHT + ROW_GAP) - ROW_GAP;
  const edges: string[] = [];
  for (const id of ids) {
    const to = position.get(id)!;
    for (const need of needs.get(id) ?? []) {
      const from = position.get(need);
      if (!from) continue;
      const x1 = from.x + NODE_WIDTH;
      const y1 = from.y + NODE_HEIGHT / 2;
      const x2 = to.x;
      const y2 = to.y + NODE_HEIGHT / 2;
      const bend = (x2 - x1) / 2;
      edges.push(`<path class="edge" marker-end="url(#arrow)" d="M${x1} ${y1} C${x1 + bend} ${y1} ${x2 - bend} ${y2} ${x2 - 4} ${y2}"/>`);
    }
  }
  const nodes = ids.map((id) => {
    const { x, y } = position.get(id)!;
    const label = id.length > LABEL_CHARS ? `${id.slice(0, LABEL_CHARS - 1)}…` : id;
    return `<g class="node s-${esc(state.get(id))}"><title>${esc(`${id}: ${state.get(id)}`)}</title><rect x="${x}" y="${y}" width="${NODE_WIDTH}" height="${NODE_HEIGHT}" rx="6"/><text x="${x + 10}" y="${y + NODE_HEIGHT / 2 + 5}">${esc(label)}</text></g>`;
  });
  return [
    `<figure class="graph"><figcaption>${esc(summary)}; each column is a layer, each edge runs from a need to the task that needs it.</figcaption>`,
    `<div class="scroll" tabindex="0" role="region" aria-label="task graph drawing">`,
    `<svg role="img" aria-labelledby="graph-title graph-desc" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    `<title id="graph-title">Task graph</title><desc id="graph-desc">${esc(ids.map((id) => `${id}${(needs.get(id) ?? []).length ? ` needs ${(needs.get(id) ?? []).join(', ')}` : ''}`).join('; '))}</desc>`,
    `<defs><marker id="arrow" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="6" markerHeight="6" orient="auto"><path d="M0 0 L8 4 L0 8 z" class="arrow"/></marker></defs>`,
    edges.join(''),
    nodes.join(''),
    '</svg></div></figure>',
  ].join('\n');
}
