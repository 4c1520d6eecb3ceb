// Budget checks a plan can fail before any run exists: counts known statically, and a cost limit without rates.
import type { Report } from './checks.js';
import type { WorkflowParts } from './partial.js';

/** What the compiled plan holds, counted once expansion is done. */
export interface StaticCounts {
  /** Tasks that may execute (control nodes, which have no effects, are not counted). */
  readonly tasks: number;
  /** foreach and matrix children. */
  readonly expansionItems: number;
  /** Loop iterations (the sum of maxIterations). */
  readonly loopIterations: number;
}

export function checkBudgets(parts: WorkflowParts, counts: StaticCounts, report: Report): void {
  const runtime = parts.envelope.spec.runtime;
  const budgets = runtime.budgets;
  if (!budgets) return;
  const path = (name: string) => ['spec', 'runtime', 'budgets', name];
  // Each task starts at most once per run (retries are attempts of the same task), so the static count is exact.
  if (budgets.maxTasks !== undefined && counts.tasks > budgets.maxTasks) {
    report('AGENTCTL_E_BUDGET_STATIC', path('maxTasks'), `the workflow compiles to ${counts.tasks} tasks, more than spec.runtime.budgets.maxTasks (${budgets.maxTasks})`, `raise maxTasks to at least ${counts.tasks}, or remove tasks`);
  }
  if (budgets.maxExpansionItems !== undefined && counts.expansionItems > budgets.maxExpansionItems) {
    report('AGENTCTL_E_BUDGET_STATIC', path('maxExpansionItems'), `foreach and matrix expand to ${counts.expansionItems} children, more than spec.runtime.budgets.maxExpansionItems (${budgets.maxExpansionItems})`, `raise maxExpansionItems to at least ${counts.expansionItems}, or shorten the lists`);
  }
  if (budgets.maxLoopIterations !== undefined && counts.loopIterations > budgets.maxLoopIterations) {
    report('AGENTCTL_E_BUDGET_STATIC', path('maxLoopIterations'), `loops allow ${counts.loopIterations} iterations in all, more than spec.runtime.budgets.maxLoopIterations (${budgets.maxLoopIterations})`, `raise maxLoopIterations to at least ${counts.loopIterations}, or lower maxIterations`);
  }
  if (budgets.maxCostMicrousd !== undefined && runtime.pricing === undefined) {
    report('AGENTCTL_E_BUDGET_PRICING_MISSING', ['spec', 'runtime', 'budgets', 'maxCostMicrousd'], 'maxCostMicrousd needs a spec.runtime.pricing table: without rates, cost cannot be enforced deterministically', 'add spec.runtime.pricing with a version and the provider/model rates, or remove maxCostMicrousd');
  }
}
