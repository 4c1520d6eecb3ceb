// The zod schema of the workflow document. Action objects are checked against their kind's own schema afterwards.
import { z } from 'zod';
import { policySchema } from '@agentctl/sdk';
import { agentSchema, providerSchema, toolSchema } from './agent-schema.js';
import { memorySchema } from './memory-spec.js';
import { packReferenceSchema, packTrustSchema } from './packs/reference.js';

export const API_VERSIONS = ['agentctl.dev/v1', 'agentctl.dev/v1alpha1'] as const;
export const NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_-]*$/;

const name = (what: string) => z.string().regex(NAME_PATTERN, `${what} must start with a letter and contain only letters, digits, "_" and "-"`);
/** Names of actions, agents and sub-workflows: the workflow's own, or `PACK.ITEM` from a declarative pack. */
export const QUALIFIED_PATTERN = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;
const qualified = (what: string) => z.string().regex(QUALIFIED_PATTERN, `${what} must start with a letter and contain only letters, digits, "_" and "-" (PACK.ITEM for a pack's item)`);

export const limits = {
  timeoutSeconds: z.number().int().min(1).max(86400),
};

const budget = (meaning: string) => z.number().int().min(1).optional().describe(meaning);

/** Run-wide limits: each optional, an integer > 0. See docs/workflow-format.md#specruntimebudgets. */
export const budgetsSchema = z.strictObject({
  maxTasks: budget('Tasks that may start executing in the run.'),
  maxWallTimeSeconds: budget('Seconds from the durable creation of the run, paused time included.'),
  maxProcessOutputBytes: budget('Captured stdout and stderr bytes of every process of the run.'),
  maxArtifactBytes: budget('Bytes of the files the run ingests into the artifact store.'),
  maxProviderRequests: budget('Model provider requests (enforced once agents exist).'),
  maxTurns: budget('Agent turns (enforced once agents exist).'),
  maxToolCalls: budget('Agent tool calls (enforced once agents exist).'),
  maxInputTokens: budget('Model input tokens (enforced once agents exist).'),
  maxOutputTokens: budget('Model output tokens (enforced once agents exist).'),
  maxTotalTokens: budget('Model input plus output tokens (enforced once agents exist).'),
  maxExpansionItems: budget('foreach and matrix children of the whole plan, counted at compile time.'),
  maxLoopIterations: budget('Loop iterations of the whole plan (the sum of maxIterations), counted at compile time.'),
  maxCostMicrousd: budget('Model cost in micro-US-dollars; needs spec.runtime.pricing (enforced once agents exist).'),
});

const rate = z.number().int().min(0);

/** A versioned table of model rates keyed `provider/model`, for maxCostMicrousd. */
export const pricingSchema = z.strictObject({
  version: z.string().min(1),
  models: z.record(
    z.string().regex(/^[^/\s]+\/[^\s]+$/, 'a pricing key is provider/model'),
    z.strictObject({
      inputMicrousdPerMillionTokens: rate,
      outputMicrousdPerMillionTokens: rate,
      reasoningMicrousdPerMillionTokens: rate.optional().describe('Defaults to the output rate.'),
      cacheReadMicrousdPerMillionTokens: rate.optional().describe('Defaults to the input rate.'),
      cacheWriteMicrousdPerMillionTokens: rate.optional().describe('Defaults to the input rate.'),
    }),
  ),
});

export const runtimeSchema = z.strictObject({
  maxConcurrency: z.number().int().min(1).max(64).default(1),
  defaultTimeoutSeconds: limits.timeoutSeconds.default(120),
  budgets: budgetsSchema.optional(),
  pricing: pricingSchema.optional(),
});

/** Children a foreach or matrix may have: `maxItems` defaults to 32 and never exceeds 256 (SPEC §2). */
export const EXPANSION_LIMITS = { defaultItems: 32, maxItems: 256, maxIterations: 64 } as const;

const maxItems = z.number().int().min(1).max(EXPANSION_LIMITS.maxItems).default(EXPANSION_LIMITS.defaultItems);

export const foreachSchema = z.strictObject({
  items: z.array(z.json()).describe('A static list: each item becomes one child task.'),
  as: name('a foreach binding').default('item').describe('The var each child reads its item from.'),
  maxItems,
});

export const matrixSchema = z.strictObject({
  axes: z.record(name('a matrix axis'), z.array(z.json())).describe('Each axis a static list; children are the Cartesian product.'),
  maxItems,
});

export const loopSchema = z.strictObject({
  maxIterations: z.number().int().min(1).max(EXPANSION_LIMITS.maxIterations),
  while: z.string().describe('One template, evaluated before each iteration; false ends the loop.'),
  initial: z.json().default(null).describe('vars.loopPrevious of iteration 0.'),
});

export const routeSchema = z.strictObject({
  select: z.string().describe('One template: the value the cases are compared with.'),
  cases: z.array(z.strictObject({ equals: z.json(), tasks: z.array(name('a destination')).min(1) })).min(1, 'a router needs at least one case'),
  default: z.array(name('a destination')).default([]),
});

const retrySchema = z
  .strictObject({
    maxAttempts: z.number().int().min(1).max(20).default(1),
    backoffMs: z.number().int().min(0).max(60000).default(0),
  })
  .default({ maxAttempts: 1, backoffMs: 0 });

/** A task's inverse: an effectful action `agentctl compensate` runs once the task's effects have happened. */
export const compensateSchema = z.strictObject({
  uses: z.string().regex(/^action:[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, 'compensate.uses must be action:NAME (NAME may be PACK.ITEM)'),
  with: z.json().default({}),
  retry: retrySchema,
  timeoutSeconds: limits.timeoutSeconds.optional(),
});

/** `spec.compensation`: see docs/compensation.md. */
export const compensationSchema = z.strictObject({
  onFailure: z.enum(['manual', 'automatic']).default('manual'),
  approval: z.enum(['policy', 'never', 'always']).default('policy'),
});

const taskFields = {
  id: name('a task id'),
  uses: z.string().regex(/^((action|agent|workflow):[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*|router)$/, 'uses must be action:NAME, agent:NAME, workflow:NAME (NAME may be PACK.ITEM) or router'),
  needs: z.array(name('a needs entry')).default([]),
  vars: z.record(name('a var name'), z.json()).optional().describe('Task-local vars, over spec.vars.'),
  varsFiles: z.array(z.string()).optional().describe('Variable files under the task\'s vars (see vars-files.ts).'),
  with: z.json().default({}),
  when: z.string().optional().describe('A template that must evaluate to a boolean; false skips the task.'),
  foreach: foreachSchema.optional(),
  matrix: matrixSchema.optional(),
  loop: loopSchema.optional(),
  route: routeSchema.optional(),
  retry: retrySchema,
  timeoutSeconds: limits.timeoutSeconds.optional(),
  failure: z.enum(['stop', 'continue']).default('stop'),
  outputSchema: z.record(z.string(), z.json()).optional().describe('JSON Schema (2020-12) the task output must match.'),
  memoryWrites: z
    .array(z.string().min(1, 'a working-memory key is not empty'))
    .refine((keys) => new Set(keys).size === keys.length, 'memoryWrites lists a key twice')
    .optional()
    .describe('Every working-memory key the task may write; required when the key a task writes is a template.'),
  compensate: compensateSchema.optional(),
};

export const taskSchema = z.strictObject(taskFields);

/** A reusable graph behind one `uses: workflow:NAME` task (compiled into the invoking plan). */
export const subworkflowSchema = z.strictObject({
  version: z.string().regex(/^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/, 'version must be a semantic version such as 1.0.0'),
  description: z.string().optional(),
  inputSchema: z.record(z.string(), z.json()).default({ type: 'object' }).describe('JSON Schema of the invocation input.'),
  outputSchema: z.record(z.string(), z.json()).default({ type: 'object' }).describe('JSON Schema of the output map.'),
  inputs: z.record(name('an input name'), z.json()).default({}).describe('Default input values, under the invocation\'s with.'),
  outputs: z.record(name('an output name'), z.json()).default({}),
  tasks: z.array(taskSchema).min(1, 'a sub-workflow needs at least one task'),
});

/** Common action fields; the rest are the kind's. */
export const actionBaseSchema = z.looseObject({ kind: z.string().min(1) });

/**
 * The envelope; `sections` are the plugin-owned `spec` sections (key → the plugin's schema), accepted beside the
 * core's own and checked by their schemas in the same pass.
 */
export function envelopeSchema<Action extends z.ZodType = typeof actionBaseSchema, Sections extends z.ZodRawShape = {}>(action: Action = actionBaseSchema as unknown as Action, sections: Sections = {} as Sections) {
  return z.strictObject({
    apiVersion: z.enum(API_VERSIONS),
    kind: z.literal('Workflow'),
    metadata: z.strictObject({
      name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, 'metadata.name must be 1-128 letters, digits, ".", "_" or "-"'),
      description: z.string().optional(),
      labels: z.record(z.string(), z.string()).default({}),
    }),
    spec: z.strictObject({
      inputs: z.record(name('an input name'), z.json()).default({}),
      vars: z.record(name('a var name'), z.json()).default({}),
      varsFiles: z.array(z.string()).default([]).describe('Variable files under spec.vars (see vars-files.ts).'),
      outputs: z.record(name('an output name'), z.json()).default({}),
      policy: policySchema.default(policySchema.parse({})),
      runtime: runtimeSchema.default(runtimeSchema.parse({})),
      providers: z.record(name('a provider name'), providerSchema).default({}),
      agents: z.record(qualified('an agent name'), agentSchema).default({}),
      tools: z.record(z.string().regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/, 'a tool name is a letter, then up to 63 letters, digits, "_" or "-"'), toolSchema).default({}),
      actions: z.record(qualified('an action name'), action).default({}),
      subworkflows: z.record(qualified('a sub-workflow name'), subworkflowSchema).default({}),
      packs: z.array(packReferenceSchema).default([]).describe('Declarative packs in the reference format; see docs/packs.md.'),
      packTrust: packTrustSchema.default(packTrustSchema.parse({})),
      tasks: z.array(taskSchema).min(1, 'a workflow needs at least one task'),
      compensation: compensationSchema.optional(),
      memory: memorySchema.default({ working: {} }).describe('Initial working memory and the long-term memory namespace; see docs/memory.md.'),
    }).extend(sections),
  });
}

export const workflowEnvelope = envelopeSchema(actionBaseSchema);
export type Envelope = z.output<typeof workflowEnvelope>;
export type TaskDocument = z.output<typeof taskSchema>;
export type SubworkflowDocument = z.output<typeof subworkflowSchema>;
