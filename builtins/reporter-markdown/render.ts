// A run as Markdown: a header (state, exit code, times), then tables of tasks, effects and approvals. Everything
// comes from the inspection document, which the ledger recorded redacted; cells are escaped so a value cannot
// break the table or inject markup.
import type { RunInspection } from '@agentctl/sdk';

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

/** A table cell: one line; pipes, backticks, brackets and asterisks escaped (no link or markup from a value), angle brackets as entities. */
function cell(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.replace(/\r?\n/g, ' ').replace(/([\\|`*[\]])/g, '\\$1').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function table(headers: readonly string[], rows: readonly unknown[][]): string[] {
  if (rows.length === 0) return ['_none_'];
  return [`| ${headers.join(' | ')} |`, `|${headers.map(() => ' --- ').join('|')}|`, ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`)];
}

export function renderMarkdown(inspection: RunInspection): string {
  const { run } = inspection;
  const failure = run.error as { code?: unknown; message?: unknown } | null;
  const lines = [
    `# Run ${cell(run.runId)}`,
    '',
    `- workflow: ${cell(run.workflowName)}`,
    `- state: **${run.state}**`,
    `- exit code: ${exitCodeOf(run) ?? '—'}`,
    `- started: ${cell(run.createdAt)}`,
    `- finished: ${cell(run.finishedAt)}`,
    `- duration: ${duration(run.createdAt, run.finishedAt)}`,
    `- trace: ${cell(run.traceId)}`,
  ];
  if (failure) lines.push(`- error: ${cell(failure.code)} ${cell(failure.message)}`);
  lines.push('', '## Tasks', '', ...table(['task', 'kind', 'state', 'disposition', 'attempt', 'duration', 'error'], inspection.tasks.map((task) => [task.taskId, task.kind, task.state, task.disposition, task.attempt, duration(task.startedAt, task.finishedAt), task.state === 'succeeded' ? null : task.error])));
  lines.push('', '## Effects', '', ...table(['effect', 'task', 'operation', 'class', 'risk', 'outcome', 'duration'], inspection.effects.map((effect) => [effect.effectId, effect.taskId, effect.operation, effect.effectClass, effect.risk, effect.inDoubt ? `${effect.state} (in doubt)` : effect.state, duration(effect.startedAt, effect.completedAt)])));
  lines.push('', '## Approvals', '', ...table(['approval', 'task', 'operation', 'state', 'reason', 'decided by', 'decision'], inspection.approvals.map((approval) => [approval.approvalId, approval.taskId, approval.operation, approval.status, approval.reason, approval.actor, approval.decisionReason])));
  return `${lines.join('\n')}\n`;
}
