// The agent's `providerOptions` for kind `openai`: a closed set, so a misspelt option fails `check` instead of being
// silently dropped.
import { z } from 'zod';
import type { JsonObject } from '@agentctl/sdk';

export const openAiOptionsSchema = z.strictObject({
  /** Sent as `store` only when given: whether OpenAI keeps the response (the API's default is to keep it). */
  store: z.boolean().optional(),
  /**
   * What the model keeps of its reasoning between turns (the reference's values). `all_turns`: every reasoning item
   * of an answer is sent back before that answer in later turns (with its encrypted content when `store` is false);
   * `auto` and `current_turn`: never, each turn reasons afresh.
   */
  reasoningContext: z.enum(['auto', 'current_turn', 'all_turns']).optional(),
  /** `implicit`: OpenAI's own prefix caching; `explicit`: also send a `prompt_cache_key` derived from model, instructions and tools. */
  promptCacheMode: z.enum(['implicit', 'explicit']).optional(),
  /** The prompt cache's lifetime; the reference supports only `30m`. Sent as `prompt_cache_retention: in_memory`. */
  promptCacheTtl: z.literal('30m', { error: 'promptCacheTtl currently supports only 30m' }).optional(),
  /** Sent as `parallel_tool_calls`. */
  parallelToolCalls: z.boolean().optional(),
  /** Sent as `safety_identifier`: a stable id of the end user (OpenAI accepts up to 64 characters). */
  safetyIdentifier: z.string().min(1).max(64).optional(),
});

export type OpenAiOptions = z.infer<typeof openAiOptionsSchema>;

/** The schema as the SDK types it: its output is always a JSON object. */
export const optionsSchema = openAiOptionsSchema as unknown as z.ZodType<JsonObject>;
