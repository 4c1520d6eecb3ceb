// A run as one static HTML page: header, timeline, task graph, tasks, effects, approvals, budget, artifacts, agents and
// errors, all from the inspection document (which the ledger recorded redacted). No script, no fetch of any kind (a
// Content-Security-Policy forbids them), and the same bytes for the same run.
import type { RunInspection } from '@agentctl/sdk';
import { badge, cell, duration, esc, millis, section } from './html.js';
import { exitCodeOf, lastMoment } from './facts.js';
import { renderGraph } from './graph.js';
import { renderAgents, renderApprovals, renderArtifacts, renderBudget, renderEffects, renderErrors, renderTasks } from './sections.js';
import { STYLE } from './style.js';
import { renderTimeline } from './timeline.js';

/** The policy of the page: nothing may be fetched or run; only the inline stylesheet applies. */
export const CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; font-src 'none'; script-src 'none'; connect-src 'none'; form-action 'none'; base-uri 'none'";

const SECTIONS = [
  ['errors', 'Errors'],
  ['timeline', 'Timeline'],
  ['graph', 'Task graph'],
  ['tasks', 'Tasks'],
  ['effects', 'Effects'],
  ['approvals', 'Approvals'],
  ['budget', 'Budget'],
  ['artifacts', 'Artifacts'],
  ['agents', 'Agents'],
] as const;

function header(inspection: RunInspection): string {
  const { run } = inspection;
  const lineage = (inspection.lineage ?? null) as { mode?: unknown; sourceRunId?: unknown; roots?: unknown; reason?: unknown } | null;
  const facts: [string, string][] = [
    ['workflow', cell(run.workflowName)],
    ['run', `<code>${esc(run.runId)}</code>`],
    ['state', `${badge(run.state)}${run.liveness === 'interrupted' ? ' (interrupted)' : ''}`],
    ['exit code', cell(exitCodeOf(run))],
    ['mode', cell(run.mode)],
    ['created', cell(run.createdAt)],
    ['finished', cell(run.finishedAt)],
    ['duration', esc(duration(millis(run.createdAt, run.finishedAt)))],
    ['span recorded', esc(duration(millis(run.createdAt, lastMoment(inspection))))],
    ['trace id', `<code>${esc(run.traceId)}</code>`],
    ['counts', esc(`${inspection.tasks.length} tasks, ${inspection.effects.length} effects, ${inspection.approvals.length} approvals, ${inspection.artifacts.length} artifacts`)],
  ];
  if (run.sourceRunId) facts.push(['source run', `<code>${esc(run.sourceRunId)}</code> <span class="sub">(its report: <code>agentctl report ${esc(run.sourceRunId)} --format html</code>)</span>`]);
  if (run.parentRunId) facts.push(['parent run', `<code>${esc(run.parentRunId)}</code>`]);
  if (lineage) {
    facts.push(['lineage', esc(`${String(lineage.mode ?? '')} of ${String(lineage.sourceRunId ?? '')}`)]);
    if (Array.isArray(lineage.roots) && lineage.roots.length) facts.push(['fresh from', cell(lineage.roots.join(', '))]);
    if (lineage.reason) facts.push(['reason', cell(lineage.reason)]);
  }
  return `<dl class="facts">${facts.map(([name, value]) => `<dt>${esc(name)}</dt><dd>${value}</dd>`).join('')}</dl>`;
}

export function renderHtml(inspection: RunInspection): string {
  const { run } = inspection;
  const title = `${run.workflowName} · ${run.runId} · ${run.state}`;
  const bodies: Record<(typeof SECTIONS)[number][0], string> = {
    errors: renderErrors(inspection),
    timeline: renderTimeline(inspection),
    graph: renderGraph(inspection),
    tasks: renderTasks(inspection),
    effects: renderEffects(inspection),
    approvals: renderApprovals(inspection),
    budget: renderBudget(inspection),
    artifacts: renderArtifacts(inspection),
    agents: renderAgents(inspection),
  };
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${esc(CONTENT_SECURITY_POLICY)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    `<meta name="generator" content="agentctl report --format html">`,
    `<title>${esc(title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    `<header><h1>Run <code>${esc(run.runId)}</code></h1>${header(inspection)}</header>`,
    `<nav aria-label="sections"><ul>${SECTIONS.map(([id, name]) => `<li><a href="#${id}">${esc(name)}</a></li>`).join('')}</ul></nav>`,
    '<main>',
    ...SECTIONS.map(([id, name]) => section(id, name, bodies[id])),
    '</main>',
    `<footer>Written by <code>agentctl report ${esc(run.runId)} --format html</code> from the run's ledger; secret values are never recorded there.</footer>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
