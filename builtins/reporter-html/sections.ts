// The page's record sections: tasks, effects (with their recorded request and result folded), approvals, budget,
// artifacts, agents (model turns and tool calls) and errors (stable code, message, help).
import { ERROR_CODES, type RunInspection } from '@agentctl/sdk';
import { badge, bytes, cell, duration, esc, fold, millis, table } from './html.js';
import { failureOf, needsOf, retriesOf, type FailureFacts } from './facts.js';

/** The most effects whose request and result the page carries; the effects table lists them all. */
export const EFFECT_DETAIL_LIMIT = 500;

const helpOf = (failure: FailureFacts) => failure.help ?? (failure.code && failure.code in ERROR_CODES ? ERROR_CODES[failure.code as keyof typeof ERROR_CODES].help : null);

export function renderTasks(inspection: RunInspection): string {
  const needs = needsOf(inspection);
  const retries = retriesOf(inspection);
  const rows = inspection.tasks.map((task) => [
    `<a href="#task-${esc(task.taskId)}" id="task-${esc(task.taskId)}">${esc(task.taskId)}</a>`,
    cell(task.kind),
    badge(task.state),
    cell(task.disposition),
    cell(Math.max(task.attempt, 1 + (retries.get(task.taskId) ?? 0))),
    cell((needs.get(task.taskId) ?? []).join(', ')),
    esc(duration(millis(task.startedAt, task.finishedAt))),
    task.state === 'succeeded' ? cell(null) : cell(failureOf(task.failure, task.error)?.code ?? task.error),
  ]);
  return table('Tasks', ['task', 'kind', 'state', 'disposition', 'attempts', 'needs', 'duration', 'error'], rows);
}

export function renderEffects(inspection: RunInspection): string {
  const rows = inspection.effects.map((effect) => [
    `<a href="#effect-${esc(effect.effectId)}">${esc(effect.effectId)}</a>`,
    cell(effect.taskId),
    cell(effect.operation),
    cell(effect.effectClass),
    cell(effect.risk),
    cell(effect.idempotency),
    `${badge(effect.state)}${effect.inDoubt ? ' <strong>in doubt</strong>' : ''}${effect.reconciled ? ` reconciled ${esc(effect.reconciled)}` : ''}`,
    esc(duration(millis(effect.startedAt, effect.completedAt))),
  ]);
  const detailed = inspection.effects.slice(0, EFFECT_DETAIL_LIMIT);
  const details = detailed.map((effect) =>
    [
      `<article class="effect" id="effect-${esc(effect.effectId)}" aria-labelledby="effect-${esc(effect.effectId)}-h">`,
      `<h3 id="effect-${esc(effect.effectId)}-h">${esc(effect.operation)} <span class="sub">task ${esc(effect.taskId)}, attempt ${esc(effect.attempt)}</span></h3>`,
      `<p class="meta">${badge(effect.state)} class ${esc(effect.effectClass)} · risk ${esc(effect.risk)} · ${esc(effect.idempotency)} · <code>${esc(effect.effectId)}</code></p>`,
      effect.error ? `<p class="error-text">${esc(effect.error)}</p>` : '',
      fold('request', effect.input),
      fold('result', effect.result),
      '</article>',
    ].join(''),
  );
  const more = inspection.effects.length - detailed.length;
  return [
    table('Effects', ['effect', 'task', 'operation', 'class', 'risk', 'idempotency', 'outcome', 'duration'], rows),
    details.length ? `<h3>Recorded requests and results</h3><p class="note">As the ledger recorded them, secrets already redacted; each value is folded and cut beyond 4096 characters.</p>` : '',
    details.join('\n'),
    more > 0 ? `<p class="note">${more} more effects: the request and result are shown for the first ${EFFECT_DETAIL_LIMIT}; <code>agentctl effects inspect</code> prints any of them.</p>` : '',
  ].join('\n');
}

export function renderApprovals(inspection: RunInspection): string {
  const rows = inspection.approvals.map((approval) => [
    esc(approval.approvalId),
    cell(approval.taskId),
    cell(approval.operation),
    cell(approval.risk),
    cell(approval.reason),
    badge(approval.status),
    cell(approval.actor),
    cell(approval.decisionReason),
    esc(duration(millis(approval.requestedAt, approval.decidedAt))),
  ]);
  return table('Approvals', ['approval', 'task', 'operation', 'risk', 'asked because', 'decision', 'actor', 'reason given', 'waited'], rows);
}

interface BudgetView {
  limits?: Record<string, unknown>;
  usage?: Record<string, { used?: unknown; reserved?: unknown; limit?: unknown }>;
  exceeded?: unknown;
  pricingVersion?: unknown;
}

export function renderBudget(inspection: RunInspection): string {
  const budget = (inspection.budget ?? null) as BudgetView | null;
  const usage = Object.entries(budget?.usage ?? {});
  if (usage.length === 0) return '<p class="none">No budget limits were set.</p>';
  const rows = usage.map(([dimension, entry]) => {
    const used = Number(entry.used ?? 0);
    const limit = typeof entry.limit === 'number' ? entry.limit : null;
    const share = limit && limit > 0 ? Math.min(100, (used / limit) * 100) : 0;
    const meter = limit === null ? '' : `<span class="nowrap"><span class="meter" aria-hidden="true"><span style="width:${share.toFixed(1)}%"${share >= 100 ? ' class="full"' : ''}></span></span> ${share.toFixed(0)}%</span>`;
    return [esc(dimension), cell(used), cell(entry.reserved ?? 0), cell(limit), meter];
  });
  const exceeded = budget?.exceeded ? `<p class="error-text">Exceeded: ${cell(budget.exceeded)}</p>` : '';
  return `${table('Budget', ['dimension', 'used', 'reserved', 'limit', 'share'], rows)}${exceeded}`;
}

export function renderArtifacts(inspection: RunInspection): string {
  const rows = inspection.artifacts.map((artifact) => {
    const size = (artifact as { sizeBytes?: unknown }).sizeBytes;
    return [esc(artifact.logicalPath), cell(artifact.taskId), cell(artifact.mediaType), typeof size === 'number' ? esc(bytes(size)) : cell(null), `<code class="digest">${esc(artifact.digest)}</code>`, cell(artifact.sourceRunId)];
  });
  return table('Artifacts', ['path', 'task', 'media type', 'size', 'digest', 'reused from run'], rows);
}

interface ModelResult {
  response?: { finishReason?: unknown; usage?: { inputTokens?: unknown; outputTokens?: unknown; totalTokens?: unknown }; model?: unknown; content?: unknown };
}

export function renderAgents(inspection: RunInspection): string {
  const turns = inspection.effects.filter((effect) => effect.effectClass === 'model');
  if (turns.length === 0 && inspection.toolCalls.length === 0) return '<p class="none">No agent task ran.</p>';
  const usage = (inspection.modelUsage ?? {}) as Record<string, unknown>;
  const totals = Object.entries(usage).map(([name, value]) => `<li>${esc(name)}: <strong>${cell(value)}</strong></li>`).join('');
  const turnRows = turns.map((effect) => {
    const response = (effect.result as ModelResult | null)?.response;
    const input = effect.input as { agent?: unknown; turn?: unknown; provider?: unknown } | null;
    const tools = Array.isArray(response?.content) ? (response.content as { type?: unknown; name?: unknown }[]).filter((part) => part?.type === 'tool_call').map((part) => String(part.name)) : [];
    return [cell(effect.taskId), cell(input?.agent), cell(input?.turn), cell(input?.provider), cell(response?.model), badge(effect.state), cell(response?.finishReason), cell(response?.usage?.inputTokens), cell(response?.usage?.outputTokens), cell(tools.join(', '))];
  });
  const callRows = inspection.toolCalls.map((call) => [cell(call.taskId), cell(call.toolId), cell(call.callId), badge(call.status), esc(duration(millis(call.createdAt, call.completedAt)))]);
  return [
    totals ? `<ul class="totals" aria-label="model usage">${totals}</ul>` : '',
    table('Model turns', ['task', 'agent', 'turn', 'provider', 'model', 'state', 'finish reason', 'input tokens', 'output tokens', 'tools asked'], turnRows),
    table('Tool calls', ['task', 'tool', 'call', 'status', 'duration'], callRows),
  ].join('\n');
}

export function renderErrors(inspection: RunInspection): string {
  const entries: { where: string; failure: FailureFacts }[] = [];
  const runFailure = failureOf(inspection.run.error);
  if (runFailure) entries.push({ where: 'run', failure: runFailure });
  for (const task of inspection.tasks) {
    if (task.state !== 'failed') continue;
    const failure = failureOf(task.failure, task.error);
    if (failure) entries.push({ where: `task ${task.taskId}`, failure });
  }
  if (entries.length === 0) return '<p class="none">No errors.</p>';
  return `<ul class="errors">${entries
    .map(({ where, failure }) => {
      const help = helpOf(failure);
      return `<li><p><strong>${esc(where)}</strong> <code class="code">${esc(failure.code ?? 'no code')}</code></p><p class="error-text">${esc(failure.message ?? '')}</p>${help ? `<p class="help">help: ${esc(help)}</p>` : ''}</li>`;
    })
    .join('\n')}</ul>`;
}
