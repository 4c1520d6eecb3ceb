// The artifact rows of the ledger (artifacts.ts holds the bytes): which task wrote which path with which blob.
import type { TaskArtifact } from './artifacts.js';
import { now, preparedOnce, type LedgerCore } from './ledger-core.js';
import type { Row } from './rows.js';

export class TaskArtifactLedger {
  readonly #core: LedgerCore;
  readonly #statements;

  constructor(core: LedgerCore) {
    this.#core = core;
    const ofRun = 'WHERE digest IN (SELECT digest FROM task_artifacts WHERE run_id = @runId)';
    this.#statements = preparedOnce(core.db, {
      insertBlob: `INSERT INTO artifacts (digest, size, created_at) VALUES (?, ?, ?) ON CONFLICT (digest) DO NOTHING`,
      insertReference: `INSERT INTO task_artifacts (run_id, task_id, path, digest) VALUES (?, ?, ?, ?) ON CONFLICT (run_id, task_id, path) DO UPDATE SET digest = excluded.digest`,
      byTask: `SELECT r.run_id, r.task_id, r.path, r.digest, a.size, a.created_at FROM task_artifacts r JOIN artifacts a USING (digest) JOIN tasks t USING (run_id, task_id) WHERE r.run_id = ? ORDER BY t.position, r.path`,
      blobs: `SELECT digest, size, created_at FROM artifacts ORDER BY created_at, digest`,
      blobsOfRun: `SELECT digest, size, created_at FROM artifacts ${ofRun} ORDER BY created_at, digest`,
      references: `SELECT run_id, task_id, path, digest FROM task_artifacts ORDER BY run_id, task_id, path`,
      referencesOfRun: `SELECT run_id, task_id, path, digest FROM task_artifacts WHERE run_id = @runId ORDER BY run_id, task_id, path`,
      blob: `SELECT digest, size, created_at FROM artifacts WHERE digest = ?`,
    });
  }

  /** Call inside the transaction of the task's outcome: the blobs are already stored, so every row names bytes on disk. */
  recordArtifacts(runId: string, taskId: string, artifacts: readonly TaskArtifact[]): void {
    const at = now();
    for (const artifact of artifacts) {
      this.#statements.insertBlob.run(artifact.digest, artifact.size, at);
      this.#statements.insertReference.run(runId, taskId, this.#core.text(artifact.path), artifact.digest);
      this.#core.audit(runId, { type: 'artifact.recorded', taskId, data: { path: artifact.path, digest: artifact.digest, size: artifact.size } });
    }
  }

  /** A run's artifacts by task, in plan order then path. */
  taskArtifactRows(runId: string): Row[] {
    return this.#core.read(() => this.#statements.byTask.all(runId) as Row[]);
  }

  /** Every stored blob (or those a run refers to), oldest first, and the references to them (of that run only). */
  artifactRows(runId?: string): { blobs: Row[]; references: Row[] } {
    return this.#core.read(() => {
      if (runId === undefined) return { blobs: this.#statements.blobs.all({}) as Row[], references: this.#statements.references.all({}) as Row[] };
      return { blobs: this.#statements.blobsOfRun.all({ runId }) as Row[], references: this.#statements.referencesOfRun.all({ runId }) as Row[] };
    });
  }

  artifactRow(digest: string): Row | undefined {
    return this.#core.read(() => this.#statements.blob.get(digest) as Row | undefined);
  }
}
