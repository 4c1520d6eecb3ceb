// Runs one process: no shell, own process group (and, where the machine allows, own cgroup), bounded concurrent
// drain, deadline, whole-tree kill.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { OutputCapture, type ProcessEnd, type ProcessResult, type ProcessSpec } from '@agentctl/sdk';
import { spawnContained } from './containment.js';

/** What spawning needs; the isolation mode name is not among it. */
export type SpawnSpec = Omit<ProcessSpec, 'isolation'>;

/** How long to wait for pipes to close after the tree was killed (a setsid'd grandchild may hold them). */
const PIPE_GRACE_MS = 2000;
/** How often a killed cgroup is looked at until it is empty (its processes die within moments of the kill). */
const EMPTY_POLL_MS = 2;

export function runProcess(spec: SpawnSpec, signal: AbortSignal): Promise<ProcessResult> {
  return new Promise((resolve) => {
    // Dropped once called: a child's pipe handles may outlive the result, and through the listeners below they keep
    // this scope alive. Holding the resolver would keep the settled promise, and so the whole output, alive with it.
    let resolvePromise: ((result: ProcessResult) => void) | undefined = resolve;
    const started = performance.now();
    // Each stream is copied once, into a buffer of at most its own limit (and never more than the combined one).
    const output = new OutputCapture(spec.limits);
    let ending: Extract<ProcessEnd, { end: 'overflow' | 'timeout' | 'aborted' }> | undefined;
    let settled = false;
    let graceTimer: NodeJS.Timeout | undefined;

    // In a cgroup of its own where possible (containment.ts): then every descendant is killed with it, including
    // one that left the process group and its parent (setsid, a daemonizing double fork).
    const { started: child, cgroup } = spawnContained(() =>
      spawn(spec.executable, [...spec.args], {
        cwd: spec.cwd,
        env: { ...spec.env },
        stdio: [spec.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
        detached: true,
        shell: false,
        windowsHide: true,
      }),
    );

    let exited = false;
    const killTree = () => {
      cgroup?.kill();
      if (child.pid === undefined) return;
      // Descendants first (found before the leader dies and they are reparented), then the whole group. Once the
      // leader is reaped its pid may be reused, so only the group is signalled then.
      // With a cgroup of its own, cgroup.kill has reached every descendant already: no walk of /proc.
      const pids = exited || cgroup ? [] : [...descendants(child.pid), child.pid];
      for (const pid of [-child.pid, ...pids]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // ESRCH: already gone.
        }
      }
    };

    const finish = (result: ProcessEnd) => {
      if (settled) return;
      settled = true;
      cgroup?.remove();
      clearTimeout(deadline);
      clearTimeout(graceTimer);
      signal.removeEventListener('abort', onAbort);
      child.stdout?.destroy();
      child.stderr?.destroy();
      const settle = resolvePromise!;
      resolvePromise = undefined;
      settle({ ...result, ...output.take(), durationMs: Math.round(performance.now() - started) });
    };

    const stop = (why: NonNullable<typeof ending>) => {
      ending ??= why;
      killTree();
    };

    // When the last chunk was taken: the pipe grace after the leader's exit is a quiet time, not a fixed one.
    let lastChunk = 0;
    const capture = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
      if (ending) return;
      lastChunk = performance.now();
      const overflow = output.write(stream, chunk);
      if (overflow) stop(overflow);
    };

    if (spec.stdin !== undefined && child.stdin) {
      // A child that exits without reading its stdin closes the pipe: that is not an error of ours.
      child.stdin.on('error', () => undefined);
      child.stdin.end(spec.stdin);
    }
    child.stdout!.on('data', capture('stdout'));
    child.stderr!.on('data', capture('stderr'));

    const deadline = setTimeout(() => stop({ end: 'timeout' }), spec.timeoutMs);
    const onAbort = () => stop({ end: 'aborted', reason: signal.reason });
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });

    // The task ends once its cgroup is empty (or the pipe grace is over): nothing killed is still alive then.
    const finishEmptied = (result: () => ProcessEnd, until = performance.now() + PIPE_GRACE_MS) => {
      if (settled) return;
      if (!cgroup?.populated() || performance.now() > until) return finish(result());
      setTimeout(() => finishEmptied(result, until), EMPTY_POLL_MS);
    };

    child.once('error', (error) => {
      killTree();
      finishEmptied(() => ({ end: 'spawn_error', message: error.message }));
    });
    child.once('exit', (exitCode, signal) => {
      // The leader is gone; nothing it left in its group (or cgroup) may outlive the task.
      exited = true;
      killTree();
      // The grace ends once the pipes stayed quiet for PIPE_GRACE_MS. Its timer can fire right after the event loop
      // was held up (other tasks recording large results), before the poll phase has read what the child wrote into
      // its pipes: one turn of the loop (setImmediate runs after the poll phase) reads that first, and a chunk taken
      // since the timer was armed starts the grace again. An ending (overflow, deadline, cancellation) stops the
      // taking of chunks, so the grace cannot be kept going past it.
      const armGrace = () => {
        const armed = performance.now();
        graceTimer = setTimeout(
          () =>
            setImmediate(() => {
              if (settled) return;
              if (lastChunk >= armed) armGrace();
              else finish(ending ?? { end: 'exited', exitCode, signal });
            }),
          PIPE_GRACE_MS,
        );
      };
      armGrace();
      child.once('close', () => finishEmptied(() => ending ?? { end: 'exited', exitCode, signal }));
    });
  });
}

/**
 * Every live descendant of `root` by parent pid, read from /proc (Linux). This also finds children that left the
 * process group with setsid while their parent was still alive. Elsewhere it returns none: the group kill remains.
 */
export function descendants(root: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Field 4 (ppid) follows the parenthesised command name, which may itself contain spaces or parentheses.
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(parent) ?? [];
      list.push(Number(entry));
      children.set(parent, list);
    } catch {
      // the process ended while we looked
    }
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}
