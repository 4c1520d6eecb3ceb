// What the telemetry cases share: the workflow whose task prints its TRACEPARENT, and the root span id of a run.
import { createHash } from 'node:crypto';
import { workflow } from './helpers.js';

/** The root span id the pack derives from a run id (docs/telemetry.md). */
export const rootSpanId = (runId: string) => createHash('sha256').update(`agentctl.run.root:${runId}`).digest('hex').slice(0, 16);

/** One task whose process prints the TRACEPARENT it was given (printenv exits 1 when there is none). */
export const PRINT_TRACEPARENT = workflow({
  runtime: { maxConcurrency: 1 },
  policy: { approval: 'never', processAllowlist: ['printenv'], environmentAllowlist: ['TRACEPARENT'] },
  actions: { print: { kind: 'builtin.shell.exec', command: 'printenv', args: ['TRACEPARENT'] } },
  tasks: [{ id: 'print', uses: 'action:print' }],
});
