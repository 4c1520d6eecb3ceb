// Ledger files as the sources of scale-out stages: `run --shard I/N --from LEDGER` and `runs gather --from LEDGER...`.
// Each stage runs in its own ledger (a pod, a job, a matrix entry), so what a stage stands on arrives as a file: its
// runs are imported into --db (store/ledger-import.ts, which keeps the ledgers one family), then chosen among.
import { rmSync, statSync } from 'node:fs';
import { AgentctlError } from '@agentctl/sdk';
import { preparedFrom } from '../runner/gather.js';
import { stageOf, type RunStage } from '../runner/stage.js';
import { importLedger } from '../store/ledger-import.js';
import { Store, type Row } from '../store/store.js';
import { newStatePaths } from './new-state-paths.js';

/** Whether a `--from` value names a ledger file (an existing file) rather than a run id. */
export function isLedgerFile(from: string): boolean {
  try {
    return statSync(from).isFile();
  } catch {
    return false;
  }
}

const byCreation = (a: Row, b: Row) => String(a.created_at).localeCompare(String(b.created_at)) || String(a.id).localeCompare(String(b.id));

/** The runs a ledger import brought (or found already here), as rows of `store`, oldest first. */
function importedRows(store: Store, ledger: string): Row[] {
  return importLedger(store, ledger)
    .map((run) => store.runRow(run.runId))
    .filter((row): row is NonNullable<typeof row> => row !== undefined)
    .sort(byCreation);
}

/**
 * `run --shard I/N --from LEDGER`: imports into the shard's ledger the latest succeeded prepare run of the same plan
 * and fan-out that the ledger holds (with the runs it stands on, and nothing else), and returns its id; the shard then
 * checks it like a prepare run named by id.
 */
export function importPrepareRun(store: Store, ledger: string, expected: RunStage): string {
  let seen: string[] = [];
  const choose = (runs: readonly Row[]) => {
    const prepares = runs.filter((run) => stageOf(run)?.stage === 'prepare');
    seen = prepares.map((run) => `${String(run.id)} (${String(run.state)}, fan-out ${stageOf(run)!.fanout}, plan ${stageOf(run)!.planDigest})`);
    const chosen = prepares.filter((run) => run.state === 'succeeded' && stageOf(run)!.planDigest === expected.planDigest && stageOf(run)!.fanout === expected.fanout).at(-1);
    return chosen ? [String(chosen.id)] : [];
  };
  const imported = importLedger(store, ledger, { select: choose });
  const prepare = imported.at(-1);
  if (prepare && (prepare.stage as { stage?: string } | null)?.stage === 'prepare') return prepare.runId;
  throw new AgentctlError(
    'AGENTCTL_E_STAGE_SOURCE_INVALID',
    `--from ${ledger}: the ledger holds no succeeded prepare run of this plan (${expected.planDigest}) cut at ${expected.fanout}${seen.length > 0 ? `; its prepare runs: ${seen.join(', ')}` : ''}`,
    { help: 'name the ledger `agentctl run FILE --stage prepare --db LEDGER` wrote, for the same workflow, inputs and --fanout' },
  );
}

/**
 * `runs gather --from LEDGER...`: imports each ledger and returns the shard runs to gather: per ledger, the latest
 * succeeded shard run of each index of this plan (a retried shard replaces the run it retried). A shard index that two
 * ledgers both bring, as different runs, is refused: the gather would not know which of them happened.
 */
export function importGatherLedgers(store: Store, ledgers: readonly string[], planDigest: string): string[] {
  const chosen = new Map<string, { runId: string; ledger: string }>();
  for (const ledger of ledgers) {
    const runs = importedRows(store, ledger).filter((run) => stageOf(run)?.planDigest === planDigest);
    if (!runs.some((run) => ['prepare', 'shard'].includes(stageOf(run)!.stage))) {
      throw new AgentctlError('AGENTCTL_E_STAGE_SOURCE_INVALID', `--from ${ledger}: the ledger holds no prepare or shard run of this plan (${planDigest})`, {
        help: 'name the ledgers the prepare and shard runs of this workflow wrote (same inputs and --fanout)',
      });
    }
    const latest = new Map<string, string>();
    for (const run of runs) {
      const stage = stageOf(run)!;
      if (stage.stage === 'shard' && run.state === 'succeeded') latest.set(`${stage.shard}/${stage.shards}@${preparedFrom(store, run) ?? ''}`, String(run.id));
    }
    for (const [key, runId] of latest) {
      const earlier = chosen.get(key);
      if (earlier && earlier.runId !== runId) {
        throw new AgentctlError('AGENTCTL_E_GATHER_INCOMPLETE', `shard ${key.split('@')[0]} ran twice: run ${earlier.runId} in ${earlier.ledger} and run ${runId} in ${ledger}`, {
          help: 'gather one ledger per shard: name only the ledger of the shard run you keep',
        });
      }
      chosen.set(key, { runId, ledger });
    }
  }
  return [...chosen.values()].map((entry) => entry.runId);
}

/**
 * Runs `body` on the stage ledger at `path`, created when `create` (a stage whose sources are ledger files). When the
 * command fails before the ledger holds a run of its own (only imported ones, which can be imported again), a ledger
 * it created is removed, folder and companions: a refused stage leaves the disk as it found it.
 */
export async function inStageLedger<T>(path: string, options: { readonly create: boolean; readonly stateKeys?: Readonly<Record<string, string>> }, body: (store: Store) => Promise<T>): Promise<T> {
  const created = options.create ? newStatePaths(path) : [];
  let store: Store | undefined;
  try {
    store = Store.open(path, { create: options.create, ...(options.stateKeys ? { stateKeys: options.stateKeys } : {}) });
    return await body(store);
  } catch (error) {
    if (created.length > 0) {
      const own = store !== undefined && store.stagedRuns().some((run) => store!.imports.record(String(run.id)) === undefined);
      store?.close();
      store = undefined;
      if (!own) for (const made of created) rmSync(made, { recursive: true, force: true });
    }
    throw error;
  } finally {
    store?.close();
  }
}
