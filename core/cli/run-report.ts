// A recorded run through a run reporter: what `report RUN --format F` writes and what a CI job summary holds.
import type { RunInspection, RunReporter } from '@agentctl/sdk';
import { runInspection } from '../store/inspection.js';
import type { Store } from '../store/store.js';

/** Reads the run from the ledger and hands its inspection to the reporter; returns what the reporter wrote. */
export async function renderRunReport(reporter: RunReporter, store: Store, runId: string): Promise<string | Uint8Array> {
  let inspection: RunInspection = runInspection(store, runId);
  // The audit trail is the largest part of a run: a reporter gets it only when it asks.
  if (!reporter.needs?.includes('audit')) inspection = { ...inspection, audit: [] };
  return reporter.report({ inspection: Object.freeze(inspection) });
}
