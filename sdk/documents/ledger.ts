// The documents of the commands that read or resolve what a run recorded: the reference's shapes (field names, types,
// nullability, arrays as arrays), and the fields agentctl prints beside them. Every object is loose: more may follow.
import { z } from 'zod';

const text = z.string();
const nullableText = z.string().nullable();
const count = z.number().int().nonnegative();
const json = z.unknown();
const timestamp = z.string();
const nullableTime = z.string().nullable();

/** The request an effect was recorded with (the reference's EffectRequest). */
const EffectRequest = z.looseObject({
  formatVersion: count,
  id: text,
  runId: text,
  taskId: text,
  attempt: count,
  ordinal: count,
  operation: text,
  effectClass: text,
  risk: text,
  idempotency: text,
  idempotencyKey: text,
  inputDigest: text,
  input: json,
  expectedEffect: text,
  traceId: text,
});

const EffectStatus = z.enum(['requested', 'waiting_for_approval', 'started', 'succeeded', 'failed', 'cancelled', 'uncertain']);
const Outcome = z.enum(['applied', 'not_applied', 'compensated']);

/** One reconciliation (the reference's EffectReconciliationRecord), with agentctl's `seq`, `outcome` and compensation run. */
const ReconciliationRecord = z.looseObject({
  reconciliationId: text,
  effectId: text,
  runId: text,
  formatVersion: count,
  status: Outcome,
  actor: text,
  reason: text,
  evidence: json,
  result: json,
  resultSchema: json,
  authorization: json,
  compensationEffectId: nullableText,
  supersedesId: nullableText,
  traceId: text,
  createdAt: timestamp,
  seq: count,
  outcome: Outcome,
  compensationRunId: nullableText,
  compensationTaskId: nullableText,
});

/** One effect (the reference's EffectRecord) with agentctl's flat view: `inDoubt`, `reconciled`, `failure`, ... */
const EffectRecord = z.looseObject({
  request: EffectRequest,
  status: EffectStatus,
  attemptNumber: count,
  requestedAt: timestamp,
  startedAt: nullableTime,
  completedAt: nullableTime,
  result: json,
  error: nullableText,
  confirmed: z.boolean(),
  effectId: text,
  runId: text,
  taskId: text,
  operation: text,
  state: EffectStatus,
  inDoubt: z.boolean(),
  reconciled: Outcome.nullable(),
  failure: json,
  // agentctl's own: the effect's profile, attempt and redacted input, flat
  attempt: count,
  kind: text,
  effectClass: text,
  risk: text,
  idempotency: text,
  input: json,
  finishedAt: nullableTime,
});

/** An approval (the reference's ApprovalRequest) with agentctl's `status`, `operation`, `input` and decision fields. */
const ApprovalRecord = z.looseObject({
  approvalId: text,
  runId: text,
  effectId: text,
  taskId: text,
  agent: nullableText,
  tool: nullableText,
  capability: nullableText,
  risk: nullableText,
  redactedInput: json,
  expectedEffect: nullableText,
  reason: text,
  traceId: text,
  requestedAt: timestamp,
  status: z.enum(['pending', 'approved', 'rejected', 'cancelled']),
  // agentctl's own: the decision
  state: z.enum(['pending', 'approved', 'rejected', 'cancelled']),
  operation: text,
  actor: nullableText,
  decisionReason: nullableText,
  decidedAt: nullableTime,
});

const TaskRecord = z.looseObject({
  runId: text,
  taskId: text,
  position: count,
  state: text,
  attempt: count,
  output: json,
  error: nullableText,
  disposition: z.enum(['executed', 'reused', 'recorded']),
  metadataVersion: count.nullable(),
  sourceRunId: nullableText,
  sourceTaskId: nullableText,
  sourceAttempt: count.nullable(),
  definitionFingerprint: nullableText,
  inputDigest: nullableText,
  outputContractFingerprint: nullableText,
  outputDigest: nullableText,
  stateDelta: json,
  stateDeltaDigest: nullableText,
  artifactManifest: z.array(z.looseObject({ path: text, digest: text, sizeBytes: count, mediaType: text, logicalName: text, storePath: text })),
  reuseDecision: json,
  updatedAt: timestamp,
  // agentctl's own: the task's kind, redacted input, whole recorded error, stored files and times
  kind: text,
  input: json,
  failure: json,
  artifacts: z.array(z.looseObject({ path: text, digest: text, size: count })),
  startedAt: nullableTime,
  finishedAt: nullableTime,
});

const RunRecord = z.looseObject({
  runId: text,
  workflowDigest: text,
  workflowSchemaVersion: nullableText,
  planDigest: text,
  workflow: json,
  plan: json,
  inputs: json,
  workingMemory: json,
  output: json,
  state: z.enum(['running', 'paused', 'succeeded', 'failed', 'cancelled']),
  mode: text,
  parentRunId: nullableText,
  sourceRunId: nullableText,
  sourceWorkflowDigest: nullableText,
  repairRoots: z.array(text),
  repairReason: nullableText,
  repairFormatVersion: count.nullable(),
  retryRoots: z.array(text),
  retryReason: nullableText,
  retryFormatVersion: count.nullable(),
  retryFailedOnly: z.boolean(),
  basePath: nullableText,
  cancellationRequested: z.boolean(),
  createdAt: timestamp,
  updatedAt: timestamp,
  traceId: text,
  workflowName: text,
  liveness: z.enum(['active', 'interrupted']).nullable(),
  // agentctl's own: the recorded error of a run that did not succeed, and when it ended
  error: json,
  finishedAt: nullableTime,
  /** The scale-out stage the run executes (`run --stage prepare`, `run --shard I/N`, `runs gather`); null for an ordinary run. */
  stage: z
    .looseObject({
      stage: z.enum(['prepare', 'shard', 'gather']),
      fanout: text,
      shard: count.nullable(),
      shards: count.nullable(),
      items: z.array(count),
      taskIds: z.array(text),
      planDigest: text,
    })
    .nullable(),
});

const ProtocolCallRecord = z.looseObject({
  effectId: text,
  runId: text,
  taskId: text,
  taskAttempt: count,
  protocol: text,
  operation: text,
  callIdentity: text,
  generation: count,
  idempotency: text,
  status: text,
  formatVersion: count,
  state: json,
  remoteId: nullableText,
  sourceRunId: nullableText,
  sourceEffectId: nullableText,
  updatedAt: timestamp,
});

const ProtocolSessionRecord = z.looseObject({
  runId: text,
  taskId: text,
  protocol: text,
  endpoint: text,
  formatVersion: count,
  state: json,
  updatedAt: timestamp,
});

const RunInspection = z.looseObject({
  run: RunRecord,
  tasks: z.array(TaskRecord),
  effects: z.array(EffectRecord),
  effectReconciliations: z.array(ReconciliationRecord),
  approvals: z.array(ApprovalRecord),
  checkpoints: z.array(z.looseObject({ sequence: count, formatVersion: count, state: json, checksum: text, createdAt: timestamp })),
  providerSessions: z.array(z.looseObject({ taskId: text, provider: text, formatVersion: count, continuation: json, updatedAt: z.string().nullable() })),
  streamEvents: z.array(json),
  protocolSessions: z.array(ProtocolSessionRecord),
  protocolCalls: z.array(ProtocolCallRecord),
  toolCalls: z.array(
    z.looseObject({
      callId: text,
      taskId: text,
      effectId: text,
      toolId: nullableText,
      inputDigest: text,
      outputDigest: nullableText,
      status: text,
      createdAt: timestamp,
      completedAt: nullableTime,
    }),
  ),
  artifacts: z.array(
    z.looseObject({
      runId: text,
      taskId: text,
      logicalPath: text,
      logicalName: text,
      mediaType: text,
      digest: text,
      sourceRunId: nullableText,
      sourceTaskId: nullableText,
      createdAt: timestamp,
    }),
  ),
  audit: z.array(z.looseObject({ seq: count, type: text, taskId: nullableText, effectId: nullableText, data: json, at: timestamp })),
  traces: z.array(json),
  lineage: json,
  modelUsage: json,
  budget: json,
  /** agentctl: where a run copied in by `runs import` came from; null for a run this ledger drove. */
  importedFrom: z
    .looseObject({
      sourceLedgerId: nullableText,
      originLedgerId: nullableText,
      sourcePath: text,
      contentDigest: text,
      importedAt: timestamp,
    })
    .nullable()
    .optional(),
});

/** A legacy-run upgrade analysis (`runs analyze`, `runs upgrade --dry-run`): agentctl finds every run current. */
const LegacyRunUpgradeAnalysis = z.looseObject({
  apiVersion: text,
  runId: text,
  databaseSchemaVersion: count,
  terminal: z.boolean(),
  fullyUpgradeable: z.boolean(),
  alreadyCurrent: z.boolean(),
  upgradeableTasks: z.array(text),
  unavailableTasks: z.array(text),
  recommendedRepairRoots: z.array(text),
  tasks: z.array(
    z.looseObject({
      taskId: text,
      state: text,
      alreadyCurrent: z.boolean(),
      upgradeable: z.boolean(),
      confidence: text,
      reasons: z.array(text),
      provenance: z.record(z.string(), z.string()),
      proposedMetadata: json,
    }),
  ),
});

/** The `data` schema of each ledger command's document, by kind (`inspect`, `runs`, `effects`, `approvals`). */
export const ledgerDocuments = {
  RunInspection,
  /** `report RUN --format FORMAT`: what the reporter returned, written to `out` or (`out: null`) carried as `content` (agentctl's own). */
  RunReport: z.looseObject({
    runId: text,
    format: text,
    mediaType: text,
    out: nullableText,
    bytes: count,
    sha256: text,
    content: nullableText,
  }),
  /** `runs list` (agentctl's own). */
  RunList: z.looseObject({
    runs: z.array(
      z.looseObject({
        runId: text,
        workflow: text,
        state: text,
        liveness: z.enum(['active', 'interrupted']).nullable(),
        mode: text,
        createdAt: timestamp,
        finishedAt: nullableTime,
        /** The scale-out stage of the run and its shard; null for an ordinary run (absent from older documents). */
        stage: z.looseObject({ stage: text, shard: count.nullable(), shards: count.nullable() }).nullable().optional(),
      }),
    ),
  }),
  EffectList: z.looseObject({ runId: text, taskId: nullableText, effects: z.array(EffectRecord), reconciliations: z.array(ReconciliationRecord) }),
  EffectInspection: z.looseObject({ effect: EffectRecord, reconciliations: z.array(ReconciliationRecord), effectiveReconciliation: ReconciliationRecord.nullable(), protocolCall: ProtocolCallRecord.nullable() }),
  /** The reconciliation just recorded, with the effect after it (`effect`, agentctl's). */
  EffectReconciliation: ReconciliationRecord,
  /** The data is the list of approvals itself: the pending ones, or every one with `--all`. */
  ApprovalList: z.array(ApprovalRecord),
  ApprovalResolution: z.looseObject({ approvalId: text, status: z.enum(['approved', 'rejected']) }),
  LegacyRunUpgradeAnalysis,
  /** `runs upgrade`: agentctl writes nothing, so `upgradeId` is null and the analysis after is the one before. */
  LegacyRunUpgrade: z.looseObject({ upgradeId: nullableText, runId: text, upgradedTasks: z.array(text), analysisBefore: LegacyRunUpgradeAnalysis, analysisAfter: LegacyRunUpgradeAnalysis }),
} satisfies Record<string, z.ZodType>;
