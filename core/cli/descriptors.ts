// File descriptors agentctl inherited must not reach the processes it starts (SPEC §5: a child gets 0, 1 and 2 only).
// Node and libuv open every descriptor of their own with O_CLOEXEC; the ones that lack it were inherited from
// agentctl's parent and would be inherited again by every child. They are closed before anything else runs.
import { closeSync, readdirSync, readFileSync } from 'node:fs';

const O_CLOEXEC = 0o2000000;

/**
 * Closes every descriptor above 2 without O_CLOEXEC, except Node's IPC channel (NODE_CHANNEL_FD). Linux only: it
 * reads /proc/self/fd and /proc/self/fdinfo; where they do not exist it does nothing. Returns what it closed.
 */
export function closeInheritedDescriptors(environment: NodeJS.ProcessEnv = process.env): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc/self/fd');
  } catch {
    return [];
  }
  const channel = Number(environment.NODE_CHANNEL_FD ?? -1);
  const closed: number[] = [];
  for (const entry of entries) {
    const fd = Number(entry);
    if (!Number.isInteger(fd) || fd <= 2 || fd === channel) continue;
    let flags: number;
    try {
      const match = /^flags:\s*([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'));
      if (!match) continue;
      flags = Number.parseInt(match[1]!, 8);
    } catch {
      // The descriptor of the directory listing itself, closed by now.
      continue;
    }
    if ((flags & O_CLOEXEC) !== 0) continue;
    try {
      closeSync(fd);
      closed.push(fd);
    } catch {
      // Already closed.
    }
  }
  return closed;
}
