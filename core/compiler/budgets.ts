// Budget checks a plan can fail before any run exists: counts known statically, and a cost limit without rates.
import type { Report } from './checks.js';
import type { WorkflowParts } from './partial.js';

export function checkBudgets(parts: WorkflowParts, report: Report): void {
  const runtime = parts.envelope.spec.runtime;
  const budgets = runtime.budgets;
  if (!budgets) return;
  // Each task starts at most once per run (retries are attempts of the same task), so the static count is exact.
  const tasks = parts.ids.size;
  if (budgets.maxTasks !== undefined && tasks > budgets.maxTasks) {
    report('AGENTCTL_E_BUDGET_STATIC', ['spec', 'runtime', 'budgets', 'maxTasks'], `the workflow declares ${tasks} tasks, more than spec.runtime.budgets.maxTasks (${budgets.maxTasks})`, `raise maxTasks to at least ${tasks}, or remove tasks`);
  }
  if (budgets.maxCostMicrousd !== undefined && runtime.pricing === undefined) {
    report('AGENTCTL_E_BUDGET_PRICING_MISSING', ['spec', 'runtime', 'budgets', 'maxCostMicrousd'], 'maxCostMicrousd needs a spec.runtime.pricing table: without rates, cost cannot be enforced deterministically', 'add spec.runtime.pricing with a version and the provider/model rates, or remove maxCostMicrousd');
  }
}
