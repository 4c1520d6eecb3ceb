// The workflow the scale-out cases split: a prepare task, a foreach whose items each run a two-task chain (a
// sub-workflow) that appends a line per item to a file, and a gather task after the aggregate.
import { workflow } from './helpers.js';

export const ITEMS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'];

export interface FanoutOptions {
  readonly items?: readonly string[];
  /** The item whose check fails (exit 1) while the file `fail-ITEM` exists in the workspace. */
  readonly failing?: string;
  /** The item whose mark needs an approval (policy requireApprovalFor on its action). */
  readonly approving?: boolean;
  readonly budgets?: Record<string, unknown>;
}

/** Every effect appends `$0` to `log/<what>.txt`: the number of lines counts how often it happened. */
export function fanoutWorkflow(options: FanoutOptions = {}): string {
  const append = { kind: 'builtin.shell.exec', command: '/bin/sh', args: ['-c', 'mkdir -p log && echo "$0" >> "log/$1.txt" && echo "$0"'] };
  const check = { kind: 'builtin.shell.exec', command: '/bin/sh', args: ['-c', 'test ! -e "fail-$0" && echo "$0" >> log/checked.txt'] };
  return workflow(
    {
      policy: { processAllowlist: ['sh', 'mkdir', 'test'], approval: options.approving ? 'required' : 'never', ...(options.approving ? { requireApprovalFor: ['action:mark'] } : {}) },
      runtime: { maxConcurrency: 2, ...(options.budgets ? { budgets: options.budgets } : {}) },
      outputs: { items: '${{ tasks.each.output.items }}', summary: '${{ tasks.summary.output.stdout }}' },
      actions: { append, check, mark: append },
      subworkflows: {
        perItem: {
          version: '1.0.0',
          inputSchema: { type: 'object', properties: { item: { type: 'string' } } },
          outputs: { line: '${{ tasks.mark.output.stdout }}' },
          tasks: [
            { id: 'mark', uses: options.approving ? 'action:mark' : 'action:append', with: { args: ['${{ inputs.item }}', 'items'] } },
            { id: 'check', uses: 'action:check', needs: ['mark'], with: { args: ['${{ inputs.item }}'] } },
          ],
        },
      },
      tasks: [
        { id: 'setup', uses: 'action:append', with: { args: ['setup', 'setup'] } },
        { id: 'each', uses: 'workflow:perItem', needs: ['setup'], foreach: { items: [...(options.items ?? ITEMS)] }, with: { item: '${{ vars.item }}' } },
        { id: 'summary', uses: 'action:append', needs: ['each'], with: { args: ['summary', 'summary'] } },
      ],
    },
    'fanout',
  );
}
