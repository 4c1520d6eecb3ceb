// The documents of the commands that read a workflow file without running it. Field names, types, nullability and
// array-or-object are the reference implementation's (opensourceops/agentctl v0.4.0); agentctl's own fields follow
// them, and every object stays open to more (the additive rule).
import { z } from 'zod';

const json = z.json();
const digest = z.string().regex(/^sha256:[0-9a-f]{64}$/);
const predictability = z.enum(['fully_predictable', 'partially_predictable', 'requires_execution']);
const retry = z.looseObject({ maxAttempts: z.number().int(), backoffMs: z.number().int() });
const names = z.array(z.string());

/** What a task runs: `{kind: action|agent, name}` or a control node (aggregate, router, loop, sub-workflow boundary). */
const TaskUse = z.discriminatedUnion('kind', [
  z.looseObject({ kind: z.enum(['action', 'agent']), name: z.string() }),
  z.looseObject({ kind: z.literal('aggregate'), name: names }),
  z.looseObject({ kind: z.literal('router'), name: z.looseObject({ select: z.string(), cases: z.array(z.looseObject({ equals: json, tasks: names })), default: names }) }),
  z.looseObject({ kind: z.literal('loop_aggregate'), name: z.looseObject({ children: names, condition: z.string() }) }),
  z.looseObject({ kind: z.literal('subworkflow_input'), name: z.looseObject({ name: z.string(), version: z.string() }) }),
  z.looseObject({ kind: z.literal('subworkflow_aggregate'), name: z.looseObject({ name: z.string(), version: z.string(), children: names }) }),
]);

const PlanTask = z.looseObject({
  id: z.string(),
  uses: TaskUse,
  needs: names,
  expansion: z.looseObject({ parent: z.string(), index: z.number().int(), bindings: z.record(z.string(), json) }).optional(),
  routeGuards: z.array(z.looseObject({ router: z.string() })),
  memoryWrites: names,
  when: z.string().nullable(),
  vars: z.record(z.string(), json),
  input: json,
  retry,
  timeoutSeconds: z.number().int(),
  failure: z.string(),
  compensate: z.looseObject({ uses: z.string(), input: json, retry, timeoutSeconds: z.number().int() }).optional(),
  outputSchema: json.nullable(),
  predictability,
  // agentctl's own
  kind: z.string(),
  effectClass: z.string(),
  risk: z.string(),
  idempotency: z.string(),
  inputPredictability: z.enum(['static', 'dynamic']),
  policy: z.looseObject({ decision: z.string(), operations: names, code: z.string().nullable(), message: z.string().nullable(), help: z.string().nullable() }),
  control: z.string().nullable(),
  subworkflow: z.looseObject({ name: z.string(), prefix: z.string() }).nullable(),
  routedBy: z.string().nullable(),
});

const Requirements = z.looseObject({
  providers: z.array(z.looseObject({ name: z.string(), kind: z.string(), agents: names, capabilities: names })),
  tools: z.array(z.looseObject({ name: z.string(), capability: z.string(), effectClass: z.string(), risk: z.string(), approval: z.string() })),
  effects: z.array(z.looseObject({ task: z.string(), operation: z.string(), effectClass: z.string(), approvalPossible: z.boolean(), predictability })),
});

/**
 * How a workflow splits for scale-out (`plan --stages`, `--shards N`): the tasks every shard needs (`prepare`), the
 * items of one `foreach`/`matrix` with the tasks that depend only on their item, and everything downstream (`gather`).
 * `shardable: false` names why in `reason`; `assignment` is present when a shard count was given (item `i` goes to
 * shard `i mod N`, shards numbered from 0 like `JOB_COMPLETION_INDEX`).
 */
const PlanStages = z.looseObject({
  shardable: z.boolean(),
  reason: z.looseObject({ code: z.string(), message: z.string() }).nullable(),
  fanout: z.looseObject({ taskId: z.string(), construct: z.enum(['foreach', 'matrix']), items: z.number().int() }).nullable(),
  prepare: names,
  items: z.array(z.looseObject({ index: z.number().int(), taskIds: names })),
  gather: names,
  shards: z.number().int().nullable(),
  assignment: z.array(z.looseObject({ shard: z.number().int(), items: z.array(z.number().int()), taskIds: names })).nullable(),
});

/** `{kind, reference, availability}`: a credential reference and whether it is there, never its value. */
const Credential = z.looseObject({ kind: z.string(), reference: z.string().nullable(), availability: z.string() });

const DoctorCheck = z.looseObject({ check: z.string(), available: z.boolean(), status: z.string(), detail: z.string(), source: z.string().optional(), engine: z.string().nullable().optional() });

/** Scope → variable name → the source that wins it (`spec.vars`, `spec.varsFiles[0]:PATH`, `invocation:--var`, ...). */
const OriginMap = z.record(z.string(), z.record(z.string(), z.string()));

/** The `data` of the commands that read a workflow without running it (`check`, `plan`, `doctor`, `explain`, ...), by kind. */
export const workflowDocuments = {
  CheckResult: z.looseObject({
    valid: z.literal(true),
    workflow: z.string(),
    workflowDigest: digest,
    planDigest: digest,
    tasks: z.number().int(),
    // agentctl's own
    file: z.string(),
    digest: z.string(),
    actions: z.number().int(),
    policy: z.array(z.looseObject({ taskId: z.string(), decision: z.string() })),
  }),
  Plan: z.looseObject({
    formatVersion: z.number().int(),
    workflowName: z.string(),
    workflowDigest: digest,
    planDigest: digest,
    order: names,
    maxConcurrency: z.number().int(),
    tasks: z.record(z.string(), PlanTask),
    predictability,
    requirements: Requirements,
    // agentctl's own
    workflow: z.string(),
    digest: z.string(),
    inputs: z.record(z.string(), json),
    policy: z.looseObject({}),
    runtime: z.looseObject({ maxConcurrency: z.number().int(), defaultTimeoutSeconds: z.number().int() }),
    processes: z.array(
      z.looseObject({
        action: z.string(),
        kind: z.string(),
        tasks: names,
        command: z.string(),
        executable: z.string().nullable(),
        isolation: z.string(),
        /** Environment entries registered propagators add (absent when none). */
        propagatedEnvironment: z.array(z.looseObject({ name: z.string(), plugin: z.string() })).optional(),
      }),
    ),
    agents: z.array(z.looseObject({ task: z.string(), agent: z.string(), model: z.string() })),
    /** Present with `--stages` or `--shards N`: how the plan splits for scale-out (docs/scale-out.md). */
    stages: PlanStages.optional(),
  }),
  DoctorResult: z.looseObject({
    ready: z.boolean(),
    workflow: z.string(),
    planDigest: digest,
    checks: z.array(DoctorCheck),
    unverified: z.array(z.looseObject({ check: z.string(), status: z.string(), detail: z.string() })),
    scope: z.string(),
    // agentctl's own
    file: z.string(),
    processes: z.array(z.looseObject({ action: z.string(), tasks: names, isolation: z.string(), command: z.string(), executable: z.string().nullable(), placement: z.record(z.string(), json).nullable() })),
    isolation: z.array(z.looseObject({ mode: z.string(), endsEveryDescendant: z.boolean(), detail: z.string() })),
  }),
  SourceExplanation: z.looseObject({ origins: OriginMap, effectiveOrigins: OriginMap, workflow: z.string() }),
  /** One entry per `spec.providers` entry, by name. */
  ProviderCapabilities: z.array(
    z.looseObject({ name: z.string(), kind: z.string(), capabilities: names, credential: Credential, agents: names, endpoint: z.string().nullable() }),
  ),
  /** One entry per provider (`provider` its name), then every other secret reference (`provider: null`). */
  AuthStatus: z.array(
    z.looseObject({
      provider: z.string().nullable(),
      credential: Credential,
      where: z.string(),
      form: z.string().nullable(),
      text: z.string().nullable(),
      present: z.boolean(),
      code: z.string().nullable(),
      problem: z.string().nullable(),
    }),
  ),
  /** The JSON Schema of the workflow format itself. */
  WorkflowSchema: z.looseObject({}),
  /** `schema --write PATH`: the file written. */
  SchemaWrite: z.looseObject({ path: z.string(), written: z.literal(true), schema: z.string() }),
  /** `plan FILE --emit FORMAT --out DIR`: the files the emitter wrote under DIR (agentctl's own). */
  PlanEmit: z.looseObject({
    format: z.string(),
    out: z.string(),
    workflow: z.string(),
    planDigest: digest,
    files: z.array(z.looseObject({ path: z.string(), bytes: z.number().int(), sha256: digest })),
  }),
  /** `schema --kind KIND`: the JSON Schema of one of these documents (agentctl's own). */
  DocumentSchema: z.looseObject({}),
  Version: z.looseObject({ version: z.string(), rust: z.boolean(), machineOutput: z.string(), cliApiVersion: z.string(), node: z.string() }),
} satisfies Record<string, z.ZodType>;
