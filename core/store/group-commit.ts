// Group commit of effect intents: the intents tasks running side by side ask for in one turn of the event loop share
// one durable transaction and one sync.
import { databaseError } from './database.js';

/**
 * Group commit: `soon(body)` runs `body` in a durable transaction with the bodies others asked for in the same turn of
 * the event loop, one transaction and one sync for all of them. The promise settles after that commit is on disk; a
 * body whose rows are refused fails alone (nested in the group's transaction, it is its own savepoint). `durable` is
 * the facade's durable transaction (Store.durableTransaction), so each group is one outermost durable transaction;
 * `offThread` (LedgerCore.syncedOffThread) takes its sync off the main thread, so the spawns and commits of tasks
 * already under way go on while a group waits for its sync.
 */
export function groupCommit(
  durable: <T>(body: () => T) => T,
  offThread: <T>(commit: () => T) => { result: T; synced: Promise<void> },
): (body: () => void) => Promise<void> {
  type Waiting = { body: () => void; resolve: () => void; reject: (error: unknown) => void };
  let waiting: Waiting[] = [];
  /** The group's transaction; the failure of each body, undefined where it succeeded. */
  const commit = (batch: Waiting[]): unknown[] => {
    if (batch.length === 1) {
      // Alone, a body is its own durable transaction: no savepoint is needed to undo it without the others.
      try {
        durable(batch[0]!.body);
        return [undefined];
      } catch (error) {
        return [error];
      }
    }
    try {
      return durable(() =>
        batch.map((one) => {
          try {
            durable(one.body);
            return undefined;
          } catch (error) {
            return error;
          }
        }),
      );
    } catch (error) {
      const failure = databaseError(error, 'database write failed', 'AGENTCTL_E_DB_WRITE');
      return batch.map(() => failure);
    }
  };
  const flush = () => {
    const batch = waiting;
    waiting = [];
    let committed: { result: unknown[]; synced: Promise<void> };
    try {
      committed = offThread(() => commit(batch));
    } catch (error) {
      for (const one of batch) one.reject(error);
      return;
    }
    const failures = committed.result;
    committed.synced.then(
      () => batch.forEach((one, index) => (failures[index] === undefined ? one.resolve() : one.reject(failures[index]))),
      (error: unknown) => batch.forEach((one, index) => one.reject(failures[index] ?? error)),
    );
  };
  return (body) =>
    new Promise((resolve, reject) => {
      waiting.push({ body, resolve, reject });
      if (waiting.length === 1) setImmediate(flush);
    });
}
