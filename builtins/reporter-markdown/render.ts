// A run as Markdown, compact enough for a CI job summary (GitHub takes at most 1 MiB per step): a header with the
// run's lineage, the failed tasks first with their stable code, message and help, then tables of tasks, effects and
// approvals, budget usage, artifacts with digests and agent usage. Each table shows at most ROW_LIMIT rows (failed
// tasks first) and says how many more there are. Everything comes from the inspection document, which the ledger
// recorded redacted; cells are escaped so a value cannot break the table or inject markup.
import { ERROR_CODES, type RunInspection } from '@agentctl/sdk';

type Task = RunInspection['tasks'][number];

/** The most rows of one table; beyond it the table says how many rows it left out. */
export const ROW_LIMIT = 200;
/** The most characters of one cell. */
const CELL_LIMIT = 300;

/** The exit code the run's command ended with, as `run` and `resume` map a run's end (docs/cli.md). */
function exitCodeOf(run: RunInspection['run']): number | null {
  const recorded = (run.error as { exitCode?: unknown } | null)?.exitCode;
  if (typeof recorded === 'number') return recorded;
  return { succeeded: 0, paused: 3, failed: 4, cancelled: 130, running: null }[run.state];
}

/** Milliseconds between two ledger timestamps as `1.234 s`, or `—` while one is missing. */
function duration(from: string | null | undefined, to: string | null | undefined): string {
  if (!from || !to) return '—';
  const ms = Date.parse(to) - Date.parse(from);
  return Number.isFinite(ms) ? `${(ms / 1000).toFixed(3)} s` : '—';
}

/** A table cell: one line, at most CELL_LIMIT characters; pipes, backticks, brackets and asterisks escaped (no link or markup from a value), angle brackets as entities. */
export function cell(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  let text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text.length > CELL_LIMIT) text = `${text.slice(0, CELL_LIMIT - 1)}…`;
  return text.replace(/\r?\n/g, ' ').replace(/[\u0000-\u001f\u007f]/g, '').replace(/([\\|`*[\]])/g, '\\$1').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function table(headers: readonly string[], rows: readonly unknown[][], total = rows.length, what = 'rows'): string[] {
  if (rows.length === 0) return ['_none_'];
  const lines = [`| ${headers.join(' | ')} |`, `|${headers.map(() => ' --- ').join('|')}|`, ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`)];
  if (total > rows.length) lines.push('', `_${total - rows.length} more ${what}; \`agentctl inspect RUN\` lists them all._`);
  return lines;
}

interface Failure {
  code: string | null;
  message: string | null;
  help: string | null;
}

function failureOf(recorded: unknown, fallback: string | null): Failure {
  const failure = (recorded ?? {}) as { code?: unknown; message?: unknown; help?: unknown; diagnostics?: unknown };
  const first = Array.isArray(failure.diagnostics) ? (failure.diagnostics[0] as { help?: unknown } | undefined) : undefined;
  const code = typeof failure.code === 'string' ? failure.code : null;
  const help = typeof failure.help === 'string' ? failure.help : typeof first?.help === 'string' ? first.help : code && code in ERROR_CODES ? ERROR_CODES[code as keyof typeof ERROR_CODES].help : null;
  return { code, message: typeof failure.message === 'string' ? failure.message : fallback, help };
}

function header(inspection: RunInspection): string[] {
  const { run } = inspection;
  const lineage = (inspection.lineage ?? null) as { mode?: unknown; sourceRunId?: unknown; roots?: unknown; reason?: unknown } | null;
  const counts = new Map<string, number>();
  for (const task of inspection.tasks) counts.set(task.state, (counts.get(task.state) ?? 0) + 1);
  const lines = [
    `# Run ${cell(run.runId)}`,
    '',
    `- workflow: ${cell(run.workflowName)}`,
    `- state: **${cell(run.state)}**`,
    `- exit code: ${exitCodeOf(run) ?? '—'}`,
    `- started: ${cell(run.createdAt)}`,
    `- finished: ${cell(run.finishedAt)}`,
    `- duration: ${duration(run.createdAt, run.finishedAt)}`,
    `- trace: ${cell(run.traceId)}`,
    `- tasks: ${inspection.tasks.length}${counts.size ? ` (${[...counts].map(([state, count]) => `${count} ${cell(state)}`).join(', ')})` : ''}`,
  ];
  if (run.sourceRunId) lines.push(`- source run: ${cell(run.sourceRunId)}`);
  if (run.parentRunId) lines.push(`- parent run: ${cell(run.parentRunId)}`);
  if (lineage) {
    const roots = Array.isArray(lineage.roots) && lineage.roots.length ? `, fresh from ${cell(lineage.roots.join(', '))}` : '';
    lines.push(`- lineage: ${cell(lineage.mode)} of ${cell(lineage.sourceRunId)}${roots}${lineage.reason ? ` (${cell(lineage.reason)})` : ''}`);
  }
  const failure = run.error ? failureOf(run.error, null) : null;
  if (failure) lines.push(`- error: ${cell(failure.code)} ${cell(failure.message)}`);
  return lines;
}

function failedTasks(failed: readonly Task[]): string[] {
  if (failed.length === 0) return [];
  const shown = failed.slice(0, ROW_LIMIT);
  const lines = ['', '## Failed tasks', ''];
  for (const task of shown) {
    const failure = failureOf(task.failure, task.error);
    lines.push(`- **${cell(task.taskId)}** (${cell(task.kind)}, attempt ${task.attempt}): ${cell(failure.code)} ${cell(failure.message)}`);
    if (failure.help) lines.push(`  - help: ${cell(failure.help)}`);
  }
  if (failed.length > shown.length) lines.push(`- _${failed.length - shown.length} more failed tasks_`);
  return lines;
}

function budget(inspection: RunInspection): string[] {
  const usage = Object.entries(((inspection.budget ?? {}) as { usage?: Record<string, { used?: unknown; reserved?: unknown; limit?: unknown }> }).usage ?? {});
  if (usage.length === 0) return [];
  const exceeded = (inspection.budget as { exceeded?: unknown }).exceeded;
  const rows = usage.map(([dimension, entry]) => {
    const share = typeof entry.used === 'number' && typeof entry.limit === 'number' && entry.limit > 0 ? `${Math.round((entry.used / entry.limit) * 100)}%` : null;
    return [dimension, entry.used ?? 0, entry.reserved ?? 0, entry.limit, share];
  });
  return ['', '## Budget', '', ...table(['dimension', 'used', 'reserved', 'limit', 'share'], rows), ...(exceeded ? ['', `**exceeded:** ${cell(exceeded)}`] : [])];
}

function artifacts(inspection: RunInspection): string[] {
  if (inspection.artifacts.length === 0) return [];
  const rows = inspection.artifacts.slice(0, ROW_LIMIT).map((artifact) => [artifact.logicalPath, artifact.taskId, artifact.mediaType, (artifact as { sizeBytes?: unknown }).sizeBytes, artifact.digest]);
  return ['', '## Artifacts', '', ...table(['path', 'task', 'media type', 'bytes', 'digest'], rows, inspection.artifacts.length, 'artifacts')];
}

function agents(inspection: RunInspection): string[] {
  const turns = inspection.effects.filter((effect) => effect.effectClass === 'model');
  if (turns.length === 0 && inspection.toolCalls.length === 0) return [];
  const byTask = new Map<string, { agent: unknown; turns: number; reasons: Set<string>; tools: string[]; input: number; output: number }>();
  const entry = (taskId: string) => {
    let found = byTask.get(taskId);
    if (!found) byTask.set(taskId, (found = { agent: null, turns: 0, reasons: new Set(), tools: [], input: 0, output: 0 }));
    return found;
  };
  for (const effect of turns) {
    const item = entry(effect.taskId);
    const response = (effect.result as { response?: { finishReason?: unknown; usage?: { inputTokens?: unknown; outputTokens?: unknown } } } | null)?.response;
    item.agent = (effect.input as { agent?: unknown } | null)?.agent ?? item.agent;
    item.turns += 1;
    if (typeof response?.finishReason === 'string') item.reasons.add(response.finishReason);
    if (typeof response?.usage?.inputTokens === 'number') item.input += response.usage.inputTokens;
    if (typeof response?.usage?.outputTokens === 'number') item.output += response.usage.outputTokens;
  }
  for (const call of inspection.toolCalls) entry(call.taskId).tools.push(`${call.toolId ?? call.callId} (${call.status})`);
  const usage = Object.entries((inspection.modelUsage ?? {}) as Record<string, unknown>).map(([name, value]) => `${name} ${cell(value)}`);
  const rows = [...byTask].slice(0, ROW_LIMIT).map(([taskId, item]) => [taskId, item.agent, item.turns, [...item.reasons].join(', '), item.input, item.output, item.tools.join(', ')]);
  return ['', '## Agents', '', ...(usage.length ? [`usage: ${usage.join(', ')}`, ''] : []), ...table(['task', 'agent', 'turns', 'finish reasons', 'input tokens', 'output tokens', 'tool calls'], rows, byTask.size, 'agent tasks')];
}

export function renderMarkdown(inspection: RunInspection): string {
  const failed = inspection.tasks.filter((task) => task.state === 'failed');
  // Beyond ROW_LIMIT tasks, the failed ones come first so none is cut.
  const ordered = inspection.tasks.length > ROW_LIMIT ? [...failed, ...inspection.tasks.filter((task) => task.state !== 'failed')] : inspection.tasks;
  const taskRows = ordered.slice(0, ROW_LIMIT).map((task) => [task.taskId, task.kind, task.state, task.disposition, task.attempt, duration(task.startedAt, task.finishedAt), task.state === 'succeeded' ? null : (failureOf(task.failure, task.error).code ?? task.error)]);
  const effectRows = inspection.effects.slice(0, ROW_LIMIT).map((effect) => [effect.effectId, effect.taskId, effect.operation, effect.effectClass, effect.risk, effect.idempotency, effect.inDoubt ? `${effect.state} (in doubt)` : effect.state, duration(effect.startedAt, effect.completedAt)]);
  const approvalRows = inspection.approvals.slice(0, ROW_LIMIT).map((approval) => [approval.approvalId, approval.taskId, approval.operation, approval.status, approval.reason, approval.actor, approval.decisionReason]);
  const lines = [
    ...header(inspection),
    ...failedTasks(failed),
    '',
    '## Tasks',
    '',
    ...table(['task', 'kind', 'state', 'disposition', 'attempt', 'duration', 'error'], taskRows, inspection.tasks.length, 'tasks'),
    '',
    '## Effects',
    '',
    ...table(['effect', 'task', 'operation', 'class', 'risk', 'idempotency', 'outcome', 'duration'], effectRows, inspection.effects.length, 'effects'),
    '',
    '## Approvals',
    '',
    ...table(['approval', 'task', 'operation', 'state', 'reason', 'decided by', 'decision'], approvalRows, inspection.approvals.length, 'approvals'),
    ...budget(inspection),
    ...artifacts(inspection),
    ...agents(inspection),
  ];
  return `${lines.join('\n')}\n`;
}
