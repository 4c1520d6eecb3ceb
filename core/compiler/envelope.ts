// The zod schema of the workflow document. Action objects are checked against their kind's own schema afterwards.
import { z } from 'zod';
import { policySchema } from '../../sdk/index.js';
import { agentSchema, providerSchema, toolSchema } from './agent-schema.js';

export const API_VERSIONS = ['agentctl.dev/v1', 'agentctl.dev/v1alpha1'] as const;
export const NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_-]*$/;

const name = (what: string) => z.string().regex(NAME_PATTERN, `${what} must start with a letter and contain only letters, digits, "_" and "-"`);

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
  maxExpansionItems: budget('foreach and matrix children (enforced once expansion exists).'),
  maxLoopIterations: budget('Loop iterations (enforced once loops exist).'),
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

export const taskSchema = z.strictObject({
  id: name('a task id'),
  uses: z.string().regex(/^(action|agent):[A-Za-z][A-Za-z0-9_-]*$/, 'uses must be action:NAME or agent:NAME'),
  needs: z.array(name('a needs entry')).default([]),
  with: z.json().default({}),
  when: z.string().optional().describe('A template that must evaluate to a boolean; false skips the task.'),
  retry: z
    .strictObject({
      maxAttempts: z.number().int().min(1).max(20).default(1),
      backoffMs: z.number().int().min(0).max(60000).default(0),
    })
    .default({ maxAttempts: 1, backoffMs: 0 }),
  timeoutSeconds: limits.timeoutSeconds.optional(),
  failure: z.enum(['stop', 'continue']).default('stop'),
  outputSchema: z.record(z.string(), z.json()).optional().describe('JSON Schema (2020-12) the task output must match.'),
});

/** Common action fields; the rest are the kind's. */
export const actionBaseSchema = z.looseObject({ kind: z.string().min(1) });

export function envelopeSchema<Action extends z.ZodType = typeof actionBaseSchema>(action: Action = actionBaseSchema as unknown as Action) {
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
      outputs: z.record(name('an output name'), z.json()).default({}),
      policy: policySchema.default(policySchema.parse({})),
      runtime: runtimeSchema.default(runtimeSchema.parse({})),
      providers: z.record(name('a provider name'), providerSchema).default({}),
      agents: z.record(name('an agent name'), agentSchema).default({}),
      tools: z.record(z.string().regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/, 'a tool name is a letter, then up to 63 letters, digits, "_" or "-"'), toolSchema).default({}),
      actions: z.record(name('an action name'), action).default({}),
      tasks: z.array(taskSchema).min(1, 'a workflow needs at least one task'),
    }),
  });
}

export const workflowEnvelope = envelopeSchema(actionBaseSchema);
export type Envelope = z.output<typeof workflowEnvelope>;
export type TaskDocument = z.output<typeof taskSchema>;
