// Human progress on stderr, attached once as a commit-hook observer (never on stdout). `progressLine` is the one
// format of a progress line: the plain log prints it as each event arrives, live progress when a task settles.
import type { CommitEvent } from '@agentctl/sdk';
import { neutralize } from './text.js';
import type { Host } from './host.js';

const SHOWN = new Set(['task.running', 'task.succeeded', 'task.failed', 'task.skipped', 'task.cancelled', 'task.waiting_for_approval', 'task.retry_scheduled', 'policy.denied']);

/** The log line of an event (`task succeeded build in 12 ms`), or undefined for an event the log does not show. */
export function progressLine(event: Pick<CommitEvent, 'type' | 'taskId' | 'data'>): string | undefined {
  if (event.type === 'plugin.log') {
    // A plugin's text may hold control characters or CI workflow commands: printed inert, on one line.
    return `log ${event.taskId ?? ''} ${String(event.data.kind)} ${String(event.data.level)}: ${neutralize(String(event.data.message)).replace(/\n/g, '\\n')}`;
  }
  if (!SHOWN.has(event.type)) return undefined;
  const attempt = typeof event.data.attempt === 'number' && event.data.attempt > 1 ? ` (attempt ${event.data.attempt})` : '';
  const duration = typeof event.data.durationMs === 'number' ? ` in ${event.data.durationMs} ms` : '';
  const code = typeof event.data.code === 'string' ? ` ${event.data.code}` : '';
  return `${event.type.replace('.', ' ')} ${event.taskId ?? ''}${attempt}${duration}${code}`;
}

export function installProgress(host: Host, write: (line: string) => void): void {
  host.hooks.commit.tapPromise({ name: 'agentctl:progress' }, async (event) => {
    const line = progressLine(event);
    if (line !== undefined) write(line);
  });
}
