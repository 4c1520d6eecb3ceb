// Syncing the database's write-ahead log off the main thread. A commit in WAL mode with `synchronous = NORMAL` has
// written its frames to the log (no buffering in SQLite) but not synced them; an fsync of the log file, from any
// descriptor of it, makes every frame written so far durable, exactly what `synchronous = FULL` does at the commit.
// Done on the thread pool, the process meanwhile spawns, reads and commits other work instead of waiting in fsync.
import { open, realpath } from 'node:fs/promises';
import { dirname } from 'node:path';

/** The log of one database file; `sync()` settles once every commit made before the call is on disk. */
export class LogSync {
  readonly #database: string;
  /** The database's real path (SQLite follows a symlinked name: its log lies beside the real file). */
  #real: Promise<string> | undefined;
  /** SQLite syncs the folder after the first sync of a log it opened, so the log's name is durable too; so does this. */
  #folderSynced = false;

  constructor(database: string) {
    this.#database = database;
  }

  async sync(): Promise<void> {
    const real = await (this.#real ??= realpath(this.#database));
    await syncFile(`${real}-wal`);
    if (this.#folderSynced) return;
    await syncFile(dirname(real));
    this.#folderSynced = true;
  }
}

async function syncFile(path: string): Promise<void> {
  // Read-only is enough: fsync flushes the file's pages whichever descriptor asks.
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } catch (error) {
    await handle.close();
    throw error;
  }
  // Durable now: the waiting work goes on while the descriptor closes.
  handle.close().catch(() => undefined);
}
