// Shared by the terminal cases (live-progress, plain-progress): a person's terminal environment, the workflows they
// run, and what the ledger recorded, which the expected lines are built from.
import { ESC } from '../support/terminal.js';
import { withDb, workflow } from './helpers.js';

/** A terminal session's environment: no NO_COLOR, no CI variable, a terminal type that moves its cursor. */
export const terminalEnv = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: process.env.HOME, TERM: 'xterm-256color', ...extra });
export const SPIN = '[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]';
export const dim = (text: string) => `${ESC}[2m${text}${ESC}[0m`;

export const shell = (script: string) => ({ kind: 'builtin.shell.exec', command: 'sh', args: ['-c', script] });
export const noApproval = { processAllowlist: ['sh'], approval: 'never' };

/** Two tasks one after the other: `build` sleeps `seconds`, then `lint`. */
export const twoTasks = (seconds: number) => workflow({ policy: noApproval, actions: { slow: shell(seconds > 0 ? `sleep ${seconds}` : 'true'), quick: shell('true') }, tasks: [{ id: 'build', uses: 'action:slow' }, { id: 'lint', uses: 'action:quick', needs: ['build'] }] });

/** What the ledger recorded: the run id, and each task's `durationMs` on its end event (the `in N ms` of a line). */
export function recorded(db: string): { runId: string; ms: (taskId: string, type?: string) => number; code: (taskId: string, type: string) => string } {
  return withDb(db, (database) => {
    const runId = String((database.prepare('SELECT id FROM runs').get() as { id: string }).id);
    const events = database.prepare('SELECT task_id, type, data_json FROM audit_events ORDER BY seq').all() as { task_id: string; type: string; data_json: string }[];
    const data = (taskId: string, type: string) => JSON.parse(events.find((event) => event.task_id === taskId && event.type === type)!.data_json);
    return { runId, ms: (taskId, type = 'task.succeeded') => data(taskId, type).durationMs, code: (taskId, type) => data(taskId, type).code };
  });
}

/** The plain log of `twoTasks`, as every non-live setting prints it. */
export const plainLog = (db: string) => {
  const { ms } = recorded(db);
  return ['task running build', `task succeeded build in ${ms('build')} ms`, 'task running lint', `task succeeded lint in ${ms('lint')} ms`];
};

/**
 * A pack kind with one effect per task, after `before` ms, lasting `during` ms (deaf to cancellation: it always takes
 * that long); `mutate` makes the effect need approval under the default policy (policy.approval: mutations).
 */
export const STEP_PACK = `
import { z } from 'zod';
import { defineActionKind } from './sdk-copy/index.js';
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
export default defineActionKind({
  name: 'acme.step',
  plugin: 'acme-pack',
  version: '1.0.0',
  hostRange: '^0.1.0',
  description: 'One effect, after a while.',
  actionSchema: z.strictObject({}),
  inputSchema: z.strictObject({ before: z.number(), during: z.number(), mutate: z.boolean() }),
  effect: { effectClass: 'observe', risk: 'low', idempotency: 'idempotent' },
  async dispatch({ input, effect }) {
    await pause(input.before);
    const request = { operation: 'acme.step', input: {}, access: { tool: 'acme.step' }, ...(input.mutate ? { profile: { effectClass: 'external_mutate' } } : {}) };
    return effect(request, async () => (await pause(input.during), {}));
  },
});
`;
