// The workflow the scale-out cases split: a prepare task, a foreach whose items each run a two-task chain (a
// sub-workflow) that appends a line per item to a file, and a gather task after the aggregate.
import { workflow } from './helpers.js';

export const ITEMS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'];

export interface FanoutOptions {
  readonly items?: readonly string[];
  /** The item whose check fails (exit 1) while the file `fail-ITEM` exists in the workspace. */
  readonly failing?: string;
  readonly budgets?: Record<string, unknown>;
  /** The prepare task is a check of `setup`: it fails while the file `fail-setup` exists. */
  readonly checkedSetup?: boolean;
  /** The prepare task gets the secret SCALE_SETUP_TOKEN and each item's mark SCALE_ITEM_TOKEN, both as TOKEN. */
  readonly secrets?: boolean;
  /** The combinedOutputLimitBytes of each process that prints (what it reserves of maxProcessOutputBytes); a check, which prints nothing, reserves 1. */
  readonly outputLimit?: number;
  readonly concurrency?: number;
  /** The foreach's `failure` (default stop). */
  readonly failure?: 'stop' | 'continue';
}

/** Every effect appends `$0` to `log/<what>.txt`: the number of lines counts how often it happened. */
export function fanoutWorkflow(options: FanoutOptions = {}): string {
  const limit = options.outputLimit === undefined ? {} : { combinedOutputLimitBytes: options.outputLimit };
  const append = { kind: 'builtin.shell.exec', command: '/bin/sh', args: ['-c', 'mkdir -p log && echo "$0" >> "log/$1.txt" && echo "$0"'], ...limit };
  const withSecret = (variable: string) => (options.secrets ? { env: { TOKEN: { env: variable } } } : {});
  const check = { kind: 'builtin.shell.exec', command: '/bin/sh', args: ['-c', 'test ! -e "fail-$0" && echo "$0" >> log/checked.txt'], ...(options.outputLimit === undefined ? {} : { combinedOutputLimitBytes: 1 }) };
  return workflow(
    {
      policy: { processAllowlist: ['sh', 'mkdir', 'test'], ...(options.secrets ? { environmentAllowlist: ['TOKEN'] } : {}), approval: 'never' },
      runtime: { maxConcurrency: options.concurrency ?? 2, ...(options.budgets ? { budgets: options.budgets } : {}) },
      outputs: { items: '${{ tasks.each.output.items }}', summary: '${{ tasks.summary.output.stdout }}' },
      actions: { append, setup: { ...append, ...withSecret('SCALE_SETUP_TOKEN') }, mark: { ...append, ...withSecret('SCALE_ITEM_TOKEN') }, check },
      subworkflows: {
        perItem: {
          version: '1.0.0',
          inputSchema: { type: 'object', properties: { item: { type: 'string' } } },
          outputs: { line: '${{ tasks.mark.output.stdout }}' },
          tasks: [
            { id: 'mark', uses: 'action:mark', with: { args: ['${{ inputs.item }}', 'items'] } },
            { id: 'check', uses: 'action:check', needs: ['mark'], with: { args: ['${{ inputs.item }}'] } },
          ],
        },
      },
      tasks: [
        options.checkedSetup ? { id: 'setup', uses: 'action:check', with: { args: ['setup'] } } : { id: 'setup', uses: 'action:setup', with: { args: ['setup', 'setup'] } },
        { id: 'each', uses: 'workflow:perItem', needs: ['setup'], foreach: { items: [...(options.items ?? ITEMS)] }, with: { item: '${{ vars.item }}' }, ...(options.failure ? { failure: options.failure } : {}) },
        { id: 'summary', uses: 'action:append', needs: ['each'], with: { args: ['summary', 'summary'] } },
      ],
    },
    'fanout',
  );
}
