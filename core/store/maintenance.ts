// The database side of the state commands: row counts (`db stats`), the artifact catalogue in the shape the command
// line prints it (`artifacts list|inspect`), and the removal of old finished runs (`gc`). The bytes of the artifact
// store are artifact-garbage.ts's.
import { basename } from 'node:path';
import { databaseError, type SqliteDatabase } from './database.js';
import { statementCache, type Statement } from './ledger-core.js';

export interface BlobRecord {
  readonly digest: string;
  readonly algorithm: 'sha256';
  readonly sizeBytes: number;
  readonly relativePath: string;
  readonly createdAt: string;
  readonly lastVerifiedAt: null;
  readonly referenceCount: number;
}

export interface ReferenceRecord {
  readonly runId: string;
  readonly taskId: string;
  readonly logicalPath: string;
  readonly logicalName: string;
  readonly mediaType: string;
  readonly digest: string;
  readonly sourceRunId: string | null;
  readonly sourceTaskId: string | null;
  readonly createdAt: string;
}

/** What `gc` removed, and the old finished runs it kept because a kept run refers to them. */
export interface RunCollection {
  readonly removed: readonly string[];
  readonly kept: readonly string[];
}

const TERMINAL = `('succeeded','failed','cancelled')`;

/** The blob's path below the store folder (artifacts.ts writes it there). */
export const relativeBlobPath = (digest: string) => `sha256/${digest.slice(7, 9)}/${digest.slice(7)}`;

const BLOBS = `SELECT a.digest, a.size, a.created_at, (SELECT COUNT(*) FROM task_artifacts r WHERE r.digest = a.digest) AS refs FROM artifacts a`;
// A reused task's references came from its source run's task of the same id (task_reuse says which run).
const REFERENCES = `SELECT r.run_id, r.task_id, r.path, r.digest, COALESCE(t.finished_at, t.updated_at) AS at, u.source_run_id
  FROM task_artifacts r JOIN tasks t USING (run_id, task_id) LEFT JOIN task_reuse u USING (run_id, task_id)`;

// Who may still refer to an old finished run: a kept run derived from it, a kept run's reused task, a kept
// compensation run's claim, and a kept run's reconciliation that names a compensation. `@ids` is the JSON array of
// the runs about to be removed; each query returns the ones among them a kept row refers to.
const REFERRED_BY_KEPT = `
  WITH gone(id) AS (SELECT value FROM json_each(@ids))
  SELECT source_run_id AS id FROM runs WHERE id NOT IN gone AND source_run_id IN gone
  UNION SELECT source_run_id FROM run_lineage WHERE run_id NOT IN gone AND source_run_id IN gone
  UNION SELECT source_run_id FROM task_reuse WHERE run_id NOT IN gone AND source_run_id IN gone
  UNION SELECT source_run_id FROM compensation_claims WHERE compensation_run_id NOT IN gone AND source_run_id IN gone
  UNION SELECT e.run_id FROM compensation_claims c JOIN effects e ON e.id = c.source_effect_id WHERE c.compensation_run_id NOT IN gone AND e.run_id IN gone
  UNION SELECT r.compensation_run_id FROM reconciliations r JOIN effects e ON e.id = r.effect_id WHERE e.run_id NOT IN gone AND r.compensation_run_id IN gone
  UNION SELECT c.run_id FROM reconciliations r JOIN effects e ON e.id = r.effect_id JOIN effects c ON c.id = r.compensation_effect_id WHERE e.run_id NOT IN gone AND c.run_id IN gone`;

export class Maintenance {
  /** Its SQL is built from filters and table names: each distinct statement is prepared once. */
  readonly #prepare: (sql: string) => Statement;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly path: string,
    private readonly transaction: <T>(body: () => T) => T,
  ) {
    this.#prepare = statementCache(db);
  }

  #read<T>(body: () => T): T {
    try {
      return body();
    } catch (error) {
      throw databaseError(error, `database ${this.path} cannot be read`, 'AGENTCTL_E_DB_OPEN');
    }
  }

  schemaVersion(): number {
    return this.#read(() => this.db.pragma('user_version', { simple: true }) as number);
  }

  /** Every table of the schema and its row count, by name. */
  tableCounts(): Record<string, number> {
    return this.#read(() => {
      const names = this.#prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`).pluck().all() as string[];
      return Object.fromEntries(names.map((name) => [name, Number(this.#prepare(`SELECT COUNT(*) FROM "${name.replace(/"/g, '""')}"`).pluck().get())]));
    });
  }

  /** Runs that have budget reservations: the reference keeps one budget row per run. */
  budgetedRuns(): number {
    return this.#read(() => Number(this.#prepare(`SELECT COUNT(DISTINCT run_id) FROM budget_reservations`).pluck().get()));
  }

  blobs(): BlobRecord[] {
    return this.#read(() => (this.#prepare(`${BLOBS} ORDER BY a.created_at, a.digest`).all() as Row[]).map(blobRecord));
  }

  blob(digest: string): BlobRecord | undefined {
    return this.#read(() => {
      const row = this.#prepare(`${BLOBS} WHERE a.digest = ?`).get(digest) as Row | undefined;
      return row && blobRecord(row);
    });
  }

  /** References, all or those of a run (and task) or of a blob, by run, task and path. */
  references(filter: { runId?: string; taskId?: string; digest?: string } = {}): ReferenceRecord[] {
    const where = [filter.runId !== undefined && 'r.run_id = @runId', filter.taskId !== undefined && 'r.task_id = @taskId', filter.digest !== undefined && 'r.digest = @digest'].filter(Boolean);
    const sql = `${REFERENCES} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY r.run_id, r.task_id, r.path`;
    return this.#read(() => (this.#prepare(sql).all(filter) as Row[]).map(referenceRecord));
  }

  /** The creation time of the oldest run not yet finished, or null: blobs written since may be about to be referred to. */
  oldestLiveRun(): string | null {
    return this.#read(() => (this.#prepare(`SELECT MIN(created_at) FROM runs WHERE state NOT IN ${TERMINAL}`).pluck().get() as string | null) ?? null);
  }

  /** The digests some task refers to. */
  referencedDigests(): Set<string> {
    return this.#read(() => new Set(this.#prepare(`SELECT DISTINCT digest FROM task_artifacts`).pluck().all() as string[]));
  }

  /** Forgets blobs whose files were removed, unless a task came to refer to one meanwhile. */
  forgetBlobs(digests: readonly string[]): void {
    if (digests.length === 0) return;
    this.transaction(() => {
      this.#prepare(`DELETE FROM artifacts WHERE digest IN (SELECT value FROM json_each(?)) AND digest NOT IN (SELECT digest FROM task_artifacts)`).run(JSON.stringify(digests));
    });
  }

  /**
   * Removes every finished run (succeeded, failed, cancelled) that finished before `before`, with every row it owns,
   * in one transaction. A run still referred to by a run that stays (its retry, repair, fork or compensation) stays
   * too. A running or paused run is never removed.
   */
  collectRuns(before: string): RunCollection {
    return this.transaction(() => {
      const old = this.#prepare(`SELECT id FROM runs WHERE state IN ${TERMINAL} AND COALESCE(finished_at, updated_at) < ? ORDER BY id`).pluck().all(before) as string[];
      const gone = new Set(old);
      const referred = this.#prepare(REFERRED_BY_KEPT).pluck();
      // Keeping a run may make a run it refers to stay as well: repeat until nothing changes.
      for (let kept = referred.all({ ids: JSON.stringify([...gone]) }) as string[]; kept.length > 0; kept = referred.all({ ids: JSON.stringify([...gone]) }) as string[]) {
        for (const id of kept) gone.delete(id);
      }
      const ids = JSON.stringify([...gone]);
      if (gone.size > 0) {
        // Checked at commit, once every owned row is gone: the order of the deletes does not matter, and a row that
        // still refers to a removed run (a table this code does not know) fails the whole collection.
        this.db.pragma('defer_foreign_keys = ON');
        const inGone = `(SELECT value FROM json_each(@ids))`;
        this.#prepare(`DELETE FROM reconciliations WHERE effect_id IN (SELECT id FROM effects WHERE run_id IN ${inGone})`).run({ ids });
        this.#prepare(`DELETE FROM compensation_claims WHERE compensation_run_id IN ${inGone} OR source_run_id IN ${inGone}`).run({ ids });
        for (const table of this.#tablesWithRunId()) this.#prepare(`DELETE FROM "${table}" WHERE run_id IN ${inGone}`).run({ ids });
        this.#prepare(`DELETE FROM runs WHERE id IN ${inGone}`).run({ ids });
      }
      return { removed: [...gone], kept: old.filter((id) => !gone.has(id)) };
    });
  }

  /** Every table with a `run_id` column: the rows a run owns. */
  #tablesWithRunId(): string[] {
    const tables = this.#prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`).pluck().all() as string[];
    return tables.filter((name) => (this.#prepare(`SELECT 1 FROM pragma_table_info(?) WHERE name = 'run_id'`).get(name) as unknown) !== undefined);
  }
}

type Row = Record<string, string | number | null>;

function blobRecord(row: Row): BlobRecord {
  const digest = String(row.digest);
  return { digest, algorithm: 'sha256', sizeBytes: Number(row.size), relativePath: relativeBlobPath(digest), createdAt: String(row.created_at), lastVerifiedAt: null, referenceCount: Number(row.refs) };
}

function referenceRecord(row: Row): ReferenceRecord {
  const path = String(row.path);
  const source = row.source_run_id === null ? null : String(row.source_run_id);
  return {
    runId: String(row.run_id),
    taskId: String(row.task_id),
    logicalPath: path,
    logicalName: basename(path),
    mediaType: mediaTypeOf(path),
    digest: String(row.digest),
    sourceRunId: source,
    sourceTaskId: source === null ? null : String(row.task_id),
    createdAt: String(row.at),
  };
}

const MEDIA_TYPES: Record<string, string> = {
  txt: 'text/plain', log: 'text/plain', md: 'text/markdown', csv: 'text/csv', html: 'text/html', htm: 'text/html', css: 'text/css',
  js: 'text/javascript', json: 'application/json', jsonl: 'application/jsonl', yaml: 'application/yaml', yml: 'application/yaml',
  xml: 'application/xml', pdf: 'application/pdf', zip: 'application/zip', gz: 'application/gzip', tar: 'application/x-tar',
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', svg: 'image/svg+xml', webp: 'image/webp',
};

/** The media type of a path by its extension; `application/octet-stream` when unknown. */
export function mediaTypeOf(path: string): string {
  const extension = /\.([^./]+)$/.exec(basename(path))?.[1]?.toLowerCase();
  return (extension && MEDIA_TYPES[extension]) || 'application/octet-stream';
}
