// Interactive approval: with a person at a terminal, an effect that needs approval is asked about on stderr.
import { userInfo } from 'node:os';
import { createInterface } from 'node:readline/promises';
import type { Approver } from '../runner/effects.js';
import { inCi } from './ci-environment.js';
import type { LiveRegion } from './live-region.js';
import { neutralize } from './output.js';

/** A terminal on both stdin and stderr, and not CI: only then is anyone there to answer. */
export function isInteractive(environment: NodeJS.ProcessEnv): boolean {
  return Boolean(process.stdin.isTTY && process.stderr.isTTY) && !inCi(environment);
}

function actorName(environment: NodeJS.ProcessEnv): string {
  try {
    return `${userInfo().username}@terminal`;
  } catch {
    return `${environment.USER ?? 'unknown'}@terminal`;
  }
}

/**
 * Questions are asked one at a time, even when tasks run concurrently. With live progress, a task shows waiting for
 * approval until its question is answered, and the live region leaves the screen while a question is on it.
 */
export function terminalApprover(environment: NodeJS.ProcessEnv, live?: Pick<LiveRegion, 'waiting' | 'answered' | 'pause'>): Approver {
  let queue: Promise<unknown> = Promise.resolve();
  const actor = actorName(environment);
  return (question, signal) => {
    live?.waiting(question.taskId);
    const ask = async () => {
      const resume = live?.pause();
      const preview = question.input.length > 400 ? `${question.input.slice(0, 400)}…` : question.input;
      const lines = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
      // The terminal is in raw mode while asking: Ctrl+C arrives as a readline event, and means cancel the run.
      lines.on('SIGINT', () => process.kill(process.pid, 'SIGINT'));
      try {
        // The recorded input may hold text a task produced: printed neutralized, never interpreted by the terminal.
        process.stderr.write(`\napproval needed for task ${question.taskId}: ${question.operation}\n  ${neutralize(question.reason)}\n  ${neutralize(preview)}\n`);
        const answer = (await lines.question('approve? [y/N] ', { signal })).trim().toLowerCase();
        const approved = answer === 'y' || answer === 'yes';
        return { approved, actor, reason: approved ? 'approved at the terminal' : `rejected at the terminal (answer: ${JSON.stringify(answer)})` };
      } finally {
        lines.close();
        live?.answered(question.taskId);
        resume?.();
      }
    };
    const next = queue.then(ask, ask);
    queue = next.catch(() => undefined);
    return next;
  };
}
