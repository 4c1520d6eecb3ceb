// The agent's `providerOptions` for kind `openai`: a closed set, so a misspelt option fails `check` instead of being
// silently dropped.
import { z } from 'zod';
import type { JsonObject } from '../../sdk/index.js';

export const openAiOptionsSchema = z.strictObject({
  /** Sent as `store` only when given: whether OpenAI keeps the response (the API's default is to keep it). */
  store: z.boolean().optional(),
  /**
   * What the model keeps of its reasoning between turns. Only `discard` exists: the provider-neutral response has
   * no place for reasoning items, so they are never sent back and each turn reasons afresh.
   */
  reasoningContext: z.literal('discard', { error: 'reasoningContext must be "discard": reasoning items are not carried between turns in this version' }).optional(),
  /** `automatic`: OpenAI's own prefix caching; `keyed`: also send a `prompt_cache_key` derived from model, instructions and tools. */
  promptCacheMode: z.enum(['automatic', 'keyed']).optional(),
  /** Sent as `prompt_cache_retention`. */
  promptCacheTtl: z.enum(['in_memory', '24h']).optional(),
  /** Sent as `parallel_tool_calls`. */
  parallelToolCalls: z.boolean().optional(),
  /** Sent as `safety_identifier`: a stable id of the end user (OpenAI accepts up to 64 characters). */
  safetyIdentifier: z.string().min(1).max(64).optional(),
});

export type OpenAiOptions = z.infer<typeof openAiOptionsSchema>;

/** The schema as the SDK types it: its output is always a JSON object. */
export const optionsSchema = openAiOptionsSchema as unknown as z.ZodType<JsonObject>;
