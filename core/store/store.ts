// The effect ledger: every state change commits with the audit event that describes it. `Store` is the facade over
// the ledger's parts (ledger-core.ts holds the handle, transactions, redaction and the audit append; each part owns
// its statements); its methods delegate, so callers name the store, not the part.
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import type { EffectState, JsonValue, RunMode, RunState, TaskState } from '@agentctl/sdk';
import { ApprovalLedger, type NewApproval } from './approvals.js';
import type { TaskArtifact } from './artifacts.js';
import { BudgetLedger } from './budget.js';
import { CompensationClaims } from './claims.js';
import type { RunDrive } from './doubt.js';
import type { EventSequence } from './event-sequence.js';
import { EffectLedger, type EffectUpdate, type NewEffect } from './effects.js';
import { LedgerCore, preparedOnce, type AuditEvent } from './ledger-core.js';
import type { Lineage, ReusedTask } from './lineage.js';
import { LinkedRunLedger, type RecordedTask } from './linked-runs.js';
import { Maintenance } from './maintenance.js';
import { ProtocolCallLedger } from './protocol-calls.js';
import { ReconciliationLedger, type ReconciliationEntry } from './reconciliations.js';
import { RunRecovery } from './recovery.js';
import { RunImportLedger } from './run-imports.js';
import type { ApprovalRow, EffectRow, RecentRunRow, ReconciliationRow, Row, RunRow, TaskRow, UsageRow } from './rows.js';
import { RunLedger, type NewRun } from './runs.js';
import { StateEncryption } from './state-encryption.js';
import type { KeyVariables } from './state-protection.js';
import { statePaths } from './state-paths.js';
import { TaskArtifactLedger } from './task-artifacts.js';
import { TaskLedger, type TaskPatch } from './tasks.js';
import { WorkingMemoryLedger } from './working-memory.js';

export type { Disposition, EffectState, RunState, TaskState } from '@agentctl/sdk';
export type { AuditEvent } from './ledger-core.js';
export type { EffectUpdate, NewEffect } from './effects.js';
export type { NewRun } from './runs.js';
export type { TaskPatch } from './tasks.js';
export type { ReconciliationEntry } from './reconciliations.js';
export type { RecordedTask } from './linked-runs.js';
export type { EncryptionInventory, EncryptionMigration } from './state-encryption.js';
export type { ProtocolCallEntry, ProtocolCallRow } from './protocol-calls.js';
export { ENDED_RUN_STATES, hasEnded, requireEnded, runNotFound } from './runs.js';
export type { ApprovalRow, EffectRow, RecentRunRow, ReconciliationRow, Row, RunRow, TaskRow, UsageRow } from './rows.js';

/** How a database is opened: created when missing, read-only, and where its state key is (see KeyVariables). */
export interface StoreOptions {
  readonly create: boolean;
  readonly readonly?: boolean;
  /** Key id → the environment variable that holds that state key here (the project config's `stateKeys`). */
  readonly stateKeys?: KeyVariables;
}

/**
 * One open database, as its parts: runs, tasks, effects, approvals, reconciliations, linked runs, artifact rows,
 * budgets, claims and maintenance. Every state change goes through the transition table (transitions.ts); every
 * document and free text written is redacted first (ledger-core.ts).
 */
export class Store {
  readonly #core: LedgerCore;
  /** The database file, absolute. */
  readonly path: string;
  /** The database, its companions and the artifact store: policy refuses them to every task. */
  readonly statePaths: readonly string[];
  readonly claims: CompensationClaims;
  readonly runs: RunLedger;
  readonly effects: EffectLedger;
  readonly tasks: TaskLedger;
  readonly approvals: ApprovalLedger;
  readonly reconciliations: ReconciliationLedger;
  readonly artifacts: TaskArtifactLedger;
  readonly linkedRuns: LinkedRunLedger;
  /** The run's working memory and each task's delta (core/store/working-memory.ts). */
  readonly workingMemory: WorkingMemoryLedger;
  readonly recovery: RunRecovery;
  /** Protocol calls and sessions: the remote identity of effects being performed (core/store/protocol-calls.ts). */
  readonly protocols: ProtocolCallLedger;
  /** The run budget ledger of this database (core/store/budget.ts). */
  readonly budgets: BudgetLedger;
  /** Counts, the artifact catalogue and the removal of old runs, for the state commands (core/store/maintenance.ts). */
  readonly maintenance: Maintenance;
  /** State encryption: inventory, enable and rotate (core/store/state-encryption.ts). */
  readonly encryption: StateEncryption;
  /** The ledger id, the provenance of imported runs and the copy of runs in (core/store/run-imports.ts, ledger-import.ts). */
  readonly imports: RunImportLedger;
  /** Where this process reads state keys by key id (StoreOptions.stateKeys): a store beside the ledger opens with them. */
  readonly stateKeys: KeyVariables;
  readonly #metadata;

  constructor(path: string, options: StoreOptions) {
    this.path = resolve(path);
    const core = (this.#core = new LedgerCore(this.path, options));
    this.statePaths = statePaths(this.path);
    this.stateKeys = options.stateKeys ?? {};
    const transaction = <T>(body: () => T): T => core.transaction(body);
    // No statement is prepared here: each part prepares its own on first use.
    this.claims = new CompensationClaims(core.db);
    this.runs = new RunLedger(core, this.claims);
    // Late-bound: an intent's durable transaction is the facade's, as it always was.
    this.effects = new EffectLedger(core, (body) => this.durableTransaction(body));
    this.tasks = new TaskLedger(core, this.effects);
    this.approvals = new ApprovalLedger(core);
    this.reconciliations = new ReconciliationLedger(core, this.effects, this.claims);
    this.artifacts = new TaskArtifactLedger(core);
    this.workingMemory = new WorkingMemoryLedger(core);
    this.linkedRuns = new LinkedRunLedger(core, this);
    this.recovery = new RunRecovery(core, this);
    this.protocols = new ProtocolCallLedger(core);
    this.budgets = new BudgetLedger(core.db, transaction);
    this.maintenance = new Maintenance(core.db, this.path, transaction);
    this.encryption = new StateEncryption(core);
    this.imports = new RunImportLedger(core);
    this.#metadata = preparedOnce(core.db, {
      digestKey: `SELECT value FROM metadata WHERE key = 'secret_digest_key'`,
      // OR IGNORE: another process may have created it meanwhile; everyone then reads the one stored.
      createDigestKey: `INSERT OR IGNORE INTO metadata (key, value) VALUES ('secret_digest_key', ?)`,
    });
  }

  static open(path: string, options: StoreOptions = { create: true }): Store {
    return new Store(path, options);
  }

  /** This process, as the owner of the runs it drives. */
  /** The audit events of each commit, in order, for the commit observers (core/runner/publisher.ts). */
  get events(): EventSequence {
    return this.#core.events;
  }

  get leaseOwner(): string {
    return this.runs.leaseOwner;
  }

  /** Sets the value redactor for the run this store is driving (LedgerCore.setRedactor). */
  setRedactor(redact: <T>(value: T) => T, redactions: () => number): void {
    this.#core.setRedactor(redact, redactions);
  }

  close(): void {
    this.#core.close();
  }

  json(value: JsonValue | undefined): string | null {
    return this.#core.json(value);
  }

  /**
   * The key of the recorded digests of secret values (32 random bytes), created the first time it is asked for and
   * kept in the database's metadata, so every digest of one database uses the same key and no two databases do.
   */
  digestKey(): Buffer {
    const read = () => (this.#metadata.digestKey.get() as { value: Buffer } | undefined)?.value;
    const existing = read();
    if (existing) return existing;
    return this.transaction(() => {
      this.#metadata.createDigestKey.run(randomBytes(32));
      return read()!;
    });
  }

  // Transactions and the audit append (ledger-core.ts).
  transaction<T>(body: () => T): T {
    return this.#core.transaction(body);
  }
  durableTransaction<T>(body: () => T): T {
    return this.#core.durableTransaction(body);
  }
  audit(runId: string, event: AuditEvent): void {
    this.#core.audit(runId, event);
  }

  // Runs (runs.ts).
  createRun(run: NewRun): void {
    this.runs.createRun(run);
  }
  renewLease(runId: string): void {
    this.runs.renewLease(runId);
  }
  finishRun(runId: string, state: RunState, result: { output?: JsonValue; error?: JsonValue; memory?: JsonValue }): void {
    this.runs.finishRun(runId, state, result);
  }
  checkpoint(runId: string, taskId: string | null, state: JsonValue): void {
    this.runs.checkpoint(runId, taskId, state);
  }
  cancelRequested(runId: string): boolean {
    return this.runs.cancelRequested(runId);
  }
  runRow(runId: string): RunRow | undefined {
    return this.runs.runRow(runId);
  }
  /** The run's row; a run the database does not hold is AGENTCTL_E_RUN_NOT_FOUND. */
  existingRun(runId: string): RunRow {
    return this.runs.existingRun(runId);
  }
  recentRuns(limit: number): RecentRunRow[] {
    return this.runs.recentRuns(limit);
  }
  compensationRuns(sourceRunId: string): RunRow[] {
    return this.runs.compensationRuns(sourceRunId);
  }
  stagedRuns(): RunRow[] {
    return this.runs.stagedRuns();
  }
  planIsJson(runId: string): boolean {
    return this.runs.planIsJson(runId);
  }
  checkpointRows(runId: string): Row[] {
    return this.runs.checkpointRows(runId);
  }
  auditRows(runId: string): Row[] {
    return this.runs.auditRows(runId);
  }

  // Tasks (tasks.ts).
  updateTask(runId: string, taskId: string, patch: TaskPatch, event?: AuditEvent): void {
    this.tasks.updateTask(runId, taskId, patch, event);
  }
  writeTask(runId: string, taskId: string, patch: TaskPatch, event?: AuditEvent): void {
    this.tasks.writeTask(runId, taskId, patch, event);
  }
  taskRows(runId: string): TaskRow[] {
    return this.tasks.taskRows(runId);
  }
  recordedTasks(runId: string): Row[] {
    return this.tasks.recordedTasks(runId);
  }

  // Effects (effects.ts).
  effect(id: string): EffectRow | undefined {
    return this.effects.effect(id);
  }
  attemptHasEffects(runId: string, taskId: string, attempt: number): boolean {
    return this.effects.attemptHasEffects(runId, taskId, attempt);
  }
  recordEffect(effect: NewEffect, state: 'requested' | 'waiting_for_approval', extra?: () => void): void {
    this.effects.recordEffect(effect, state, extra);
  }
  recordEffectSoon(effect: NewEffect, extra?: () => void): Promise<void> {
    return this.effects.recordEffectSoon(effect, extra);
  }
  updateEffect(runId: string, effectId: string, state: EffectState, update: EffectUpdate = {}): void {
    this.effects.updateEffect(runId, effectId, state, update);
  }
  releaseApprovedEffect(runId: string, effectId: string, taskId: string, operation: string): void {
    this.effects.releaseApprovedEffect(runId, effectId, taskId, operation);
  }
  effectRows(runId: string): EffectRow[] {
    return this.effects.effectRows(runId);
  }
  usageRows(runId: string): UsageRow[] {
    return this.effects.usageRows(runId);
  }

  // Approvals (approvals.ts).
  insertApproval(approval: NewApproval): void {
    this.approvals.insertApproval(approval);
  }
  approvalRow(approvalId: string): ApprovalRow | undefined {
    return this.approvals.approvalRow(approvalId);
  }
  approvalForEffect(effectId: string): ApprovalRow | undefined {
    return this.approvals.approvalForEffect(effectId);
  }
  decideApproval(approvalId: string, decision: 'approved' | 'rejected', actor: string, reason: string): ApprovalRow {
    return this.approvals.decideApproval(approvalId, decision, actor, reason);
  }
  approvalRows(runId: string): ApprovalRow[] {
    return this.approvals.approvalRows(runId);
  }

  // Reconciliations (reconciliations.ts).
  reconciliationRows(effectId: string): ReconciliationRow[] {
    return this.reconciliations.reconciliationRows(effectId);
  }
  reconcileEffect(effectId: string, entry: ReconciliationEntry, check: (effect: EffectRow, earlier: Row[], run: RunDrive) => void, isLive: (row: RunRow) => boolean): number {
    return this.reconciliations.reconcileEffect(effectId, entry, check, isLive);
  }
  runReconciliations(runId: string): ReconciliationRow[] {
    return this.reconciliations.runReconciliations(runId);
  }
  latestReconciliations(runId: string): Map<string, ReconciliationRow> {
    return this.reconciliations.latestReconciliations(runId);
  }
  recordCompensation(compensation: { runId: string; taskId: string; effectId: string | null }, sourceEffectIds: readonly string[]): void {
    this.reconciliations.recordCompensation(compensation, sourceEffectIds);
  }

  // Recovery (recovery.ts).
  acquireRun(runId: string, isLive: (row: RunRow) => boolean, workspace?: string): void {
    this.recovery.acquireRun(runId, isLive, workspace);
  }
  closeWaiting(runId: string, reason: string): string[] {
    return this.recovery.closeWaiting(runId, reason);
  }
  interruptRun(runId: string, error: JsonValue): void {
    this.recovery.interruptRun(runId, error);
  }
  stopDrivenRuns(reason: string): { runId: string; traceId: string; tasks: Record<string, TaskState> }[] {
    return this.recovery.stopDrivenRuns(reason);
  }

  // Artifact rows (task-artifacts.ts).
  recordArtifacts(runId: string, taskId: string, artifacts: readonly TaskArtifact[]): void {
    this.artifacts.recordArtifacts(runId, taskId, artifacts);
  }
  taskArtifactRows(runId: string): Row[] {
    return this.artifacts.taskArtifactRows(runId);
  }
  artifactRows(runId?: string): { blobs: Row[]; references: Row[] } {
    return this.artifacts.artifactRows(runId);
  }
  artifactRow(digest: string): Row | undefined {
    return this.artifacts.artifactRow(digest);
  }

  // Linked runs (linked-runs.ts).
  createRecordedRun(
    run: NewRun & { readonly mode: RunMode; readonly sourceRunId: string },
    tasks: readonly RecordedTask[],
    end: { readonly state: RunState; readonly output: JsonValue; readonly error?: JsonValue; readonly memory?: JsonValue; readonly event: AuditEvent },
  ): void {
    this.linkedRuns.createRecordedRun(run, tasks, end);
  }
  createDerivedRun(run: NewRun & { readonly sourceRunId: string }, reused: readonly ReusedTask[], lineage: Lineage): void {
    this.linkedRuns.createDerivedRun(run, reused, lineage);
  }
  lineageRow(runId: string): Row | undefined {
    return this.linkedRuns.lineageRow(runId);
  }
  taskReuseRows(runId: string): Row[] {
    return this.linkedRuns.taskReuseRows(runId);
  }
}
