// The documents of the commands that start, continue, derive or stop a run. Field names, types and nullability are
// the reference implementation's (opensourceops/agentctl v0.4.0); agentctl's own additions are marked as such. Every
// object is loose: a reader of the reference's documents ignores what agentctl adds.
import { z } from 'zod';

const RunState = z.enum(['running', 'paused', 'succeeded', 'failed', 'cancelled']);
const TaskState = z.enum(['pending', 'ready', 'running', 'waiting_for_approval', 'retry_scheduled', 'succeeded', 'failed', 'skipped', 'cancelled']);
const Json = z.unknown();
const ids = z.array(z.string());

/** One file a task produced, stored by digest (the reference's `ArtifactRecord`). */
const ArtifactRecord = z.looseObject({
  path: z.string(),
  digest: z.string(),
  sizeBytes: z.number().int(),
  mediaType: z.string(),
  logicalName: z.string(),
  /** The blob, relative to the database's folder: `artifacts/sha256/XX/DIGEST`. */
  storePath: z.string(),
});

/** The fields every outcome of a run shares. */
const outcomeCore = {
  runId: z.string(),
  traceId: z.string(),
  state: RunState,
  /** The rendered `spec.outputs` (`{}` when none are declared or the run did not succeed). */
  output: Json.nullable(),
  /** agentctl: each task's final state. */
  tasks: z.record(z.string(), TaskState).optional(),
};

/** A derived run's outcome (`RepairOutcome`, `RetryOutcome`). */
const derivedOutcome = {
  ...outcomeCore,
  sourceRunId: z.string(),
  reusedTasks: ids,
  executedTasks: ids,
  artifacts: z.array(ArtifactRecord),
};

/** Why a task of the source run cannot be reused (`blockedReuse[]`); `rule` is one of agentctl's block names. */
const RepairBlock = z.looseObject({
  taskId: z.string(),
  rule: z.string(),
  message: z.string(),
  sourceFingerprint: z.string().nullable(),
  targetFingerprint: z.string().nullable(),
  suggestedRepairRoots: ids,
  fullForkRequired: z.boolean(),
  /** agentctl: the effect in doubt, for `unreconciled_effect` and effect rules. */
  effectId: z.string().optional(),
});

/** One task's decision (`tasks[]`): `reuse` its recorded result, `execute` it fresh, `removed`, or `blocked`. */
const RepairTaskPlan = z.looseObject({
  taskId: z.string(),
  disposition: z.enum(['reuse', 'execute', 'removed', 'blocked']),
  reason: z.string(),
  sourceState: TaskState.nullable(),
  sourceFingerprint: z.string().nullable(),
  targetFingerprint: z.string().nullable(),
  /** agentctl: the reuse checks of a reuse candidate, each with what it compared. */
  checks: z.array(z.looseObject({ check: z.string(), passed: z.boolean(), detail: z.string() })).optional(),
});

const FreshEffectSummary = z.looseObject({
  providerTasks: z.number().int(),
  actionTasks: z.number().int(),
  declaredEffects: z.number().int(),
  uncertainSourceEffects: z.number().int(),
});

/** The fields `repair --plan` and `retry --plan` share. */
const planCore = {
  compatible: z.boolean(),
  sourceRunId: z.string(),
  restartSuccessful: z.boolean(),
  reusedTasks: ids,
  rerunTasks: ids,
  blockedReuse: z.array(RepairBlock),
  freshEffectSummary: FreshEffectSummary,
  approvalSummary: ids,
  estimatedProviderTasks: z.number().int(),
  warnings: ids,
  tasks: z.array(RepairTaskPlan),
};

const CompensationBlock = z.looseObject({
  taskId: z.string(),
  effectId: z.string().nullable(),
  rule: z.string(),
  message: z.string(),
});

export const runDocuments = {
  /** `run`, `resume`, `replay`, `fork`: the run's identity, its end state and its outputs. */
  RunOutcome: z.looseObject({
    ...outcomeCore,
    /** agentctl: a linked run's lineage (`replay`, `fork`). */
    sourceRunId: z.string().optional(),
    mode: z.string().optional(),
  }),
  /** `cancel RUN`: the request is durable; `state` (agentctl) says whether the run already ended `cancelled`. */
  Cancellation: z.looseObject({
    runId: z.string(),
    requested: z.literal(true),
    /** agentctl: `cancelled` when nobody drove the run (it ended at once), `running` when its driver will stop it. */
    state: RunState,
    /** agentctl: the run's state before the request. */
    previousState: RunState,
  }),
  RepairPlan: z.looseObject({
    apiVersion: z.literal('agentctl.dev/repair-plan/v1'),
    ...planCore,
    sourceWorkflowDigest: z.string(),
    targetWorkflowDigest: z.string(),
    repairRoots: ids,
    newTasks: ids,
    removedTasks: ids,
    changedTasks: ids,
  }),
  RepairOutcome: z.looseObject(derivedOutcome),
  RetryPlan: z.looseObject({
    apiVersion: z.literal('agentctl.dev/retry-plan/v1'),
    ...planCore,
    workflowDigest: z.string(),
    failedOnly: z.boolean(),
    retryRoots: ids,
  }),
  RetryOutcome: z.looseObject({ ...derivedOutcome, failedOnly: z.boolean(), retryRoots: ids }),
  CompensationPlan: z.looseObject({
    apiVersion: z.literal('agentctl.dev/compensation-plan/v1'),
    sourceRunId: z.string(),
    /** A compensation run would be created: something is left to undo and nothing selected is in doubt. */
    executable: z.boolean(),
    /** Every selected effect that happened is compensated by this plan or was already. */
    complete: z.boolean(),
    /** `spec.compensation.onFailure: automatic`. */
    automatic: z.boolean(),
    selectedTasks: ids,
    /** The tasks the compensation run runs, in the order it runs them. */
    tasks: z.array(
      z.looseObject({
        sourceTaskId: z.string(),
        compensationTaskId: z.string(),
        action: z.string(),
        sourceEffectIds: ids,
      }),
    ),
    blocked: z.array(CompensationBlock),
    alreadyCompensatedEffects: ids,
    /** agentctl: every selected task that declares `compensate`, with its disposition and why. */
    decisions: z.array(z.looseObject({ taskId: z.string(), disposition: z.string(), reason: z.string(), uses: z.string(), effectIds: ids })).optional(),
  }),
  CompensationOutcome: z.looseObject({
    runId: z.string().nullable(),
    sourceRunId: z.string(),
    traceId: z.string().nullable(),
    state: RunState.nullable(),
    compensatedTasks: ids,
    failedTasks: ids,
    blocked: z.array(CompensationBlock),
  }),
} satisfies Record<string, z.ZodType>;
