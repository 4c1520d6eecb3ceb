// Human progress on stderr, attached once as a commit-hook observer (never on stdout).
import { neutralize } from './text.js';
import type { Host } from './host.js';

const SHOWN = new Set(['task.running', 'task.succeeded', 'task.failed', 'task.skipped', 'task.cancelled', 'task.waiting_for_approval', 'task.retry_scheduled', 'policy.denied']);

export function installProgress(host: Host, write: (line: string) => void): void {
  host.hooks.commit.tapPromise({ name: 'agentctl:progress' }, async (event) => {
    if (event.type === 'plugin.log') {
      // A plugin's text may hold control characters or CI workflow commands: printed inert, on one line.
      write(`log ${event.taskId ?? ''} ${String(event.data.kind)} ${String(event.data.level)}: ${neutralize(String(event.data.message)).replace(/\n/g, '\\n')}`);
      return;
    }
    if (!SHOWN.has(event.type)) return;
    const attempt = typeof event.data.attempt === 'number' && event.data.attempt > 1 ? ` (attempt ${event.data.attempt})` : '';
    const duration = typeof event.data.durationMs === 'number' ? ` in ${event.data.durationMs} ms` : '';
    const code = typeof event.data.code === 'string' ? ` ${event.data.code}` : '';
    write(`${event.type.replace('.', ' ')} ${event.taskId ?? ''}${attempt}${duration}${code}`);
  });
}
