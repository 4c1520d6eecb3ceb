// The schemas of `spec.providers`, `spec.agents` and `spec.tools` (the reference format, plus `kind: action` tools).
// Only shapes and ranges live here; references between them and to registered kinds are checked in agents.ts.
import { z } from 'zod';
import { secretReferenceSchema } from '@agentctl/sdk';

const jsonObject = z.record(z.string(), z.json());
const timeoutSeconds = z.number().int().min(1).max(86400);

export const providerSchema = z.strictObject({
  kind: z.string().min(1).describe('A registered provider kind: fake, openai, ...'),
  endpoint: z.url({ protocol: /^https?$/, error: 'endpoint must be an http or https URL' }).optional().describe('The URL requests are sent to; each kind has its default.'),
  credential: secretReferenceSchema.optional().describe("A secret reference; default: the kind's variable, e.g. {env: OPENAI_API_KEY}."),
  apiVersion: z.string().min(1).optional(),
  headers: z.record(z.string().regex(/^[A-Za-z0-9-]+$/, 'a header name'), secretReferenceSchema).default({}).describe('Extra headers, each a secret reference.'),
});

export const retrySchema = z
  .strictObject({
    maxAttempts: z.number().int().min(1).max(20).default(1),
    backoffMs: z.number().int().min(0).max(60000).default(0),
  })
  .default({ maxAttempts: 1, backoffMs: 0 });

export const agentSchema = z.strictObject({
  provider: z.string().min(1).describe('A spec.providers entry.'),
  model: z.string().min(1),
  description: z.string().optional(),
  instructions: z.string().optional(),
  instructionsFile: z.string().min(1).optional().describe('Workspace-relative file read when the task runs (a recorded observe effect).'),
  vars: jsonObject.default({}),
  varsFiles: z.array(z.string()).default([]).describe('Variable files under the agent\'s vars, for the tasks using it.'),
  tools: z.array(z.string().min(1)).default([]),
  maxTurns: z.number().int().min(1).max(64).default(8),
  maxToolCalls: z.number().int().min(0).max(256).default(16),
  maxOutputTokens: z.number().int().min(1).max(1_000_000).default(2048),
  timeoutSeconds: timeoutSeconds.default(120).describe('Bounds one provider call.'),
  retry: retrySchema.describe('Retries of a definite retryable provider answer (429, 5xx).'),
  reasoning: z.strictObject({ effort: z.enum(['none', 'low', 'medium', 'high', 'xhigh', 'max']), mode: z.string().optional() }).optional(),
  structuredOutput: jsonObject.optional().describe('JSON Schema of the final answer; it becomes the task output.'),
  usageLimit: z
    .strictObject({
      maxInputTokens: z.number().int().min(1).optional(),
      maxOutputTokens: z.number().int().min(1).optional(),
      maxCostUsd: z.number().positive().optional(),
    })
    .optional(),
  stream: z.boolean().default(false).describe('Ask the provider to stream; the response is recorded whole either way.'),
  providerOptions: jsonObject.default({}),
});

export const toolSchema = z.strictObject({
  kind: z.string().min(1).describe('builtin.workspace.read, builtin.workspace.write, builtin.echo, a pack tool kind, or action.'),
  action: z.string().min(1).optional().describe('For kind: action, the spec.actions entry the tool runs.'),
  description: z.string().min(1),
  inputSchema: jsonObject,
  outputSchema: jsonObject,
  capability: z.string().min(1),
  risk: z.enum(['low', 'medium', 'high', 'critical']),
  effectClass: z.enum(['pure', 'internal_state', 'observe', 'workspace_mutate', 'external_mutate', 'process_execution', 'network', 'model', 'remote_agent']),
  idempotency: z.enum(['pure', 'idempotent', 'keyed', 'at_most_once', 'unknown']),
  retrySafe: z.boolean(),
  timeoutSeconds,
  secrets: z.array(secretReferenceSchema).default([]),
  network: z.array(z.string().min(1)).default([]),
  approval: z.enum(['policy', 'never', 'always']).default('policy'),
});

export type ProviderDocument = z.output<typeof providerSchema>;
export type AgentDocument = z.output<typeof agentSchema>;
export type ToolDocument = z.output<typeof toolSchema>;
