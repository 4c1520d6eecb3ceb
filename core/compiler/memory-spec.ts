// `spec.memory`: the run's initial working memory and the long-term memory namespace its tasks may use.
import { z } from 'zod';

/**
 * `spec.memory.longTerm`: where long-term memory lives and how it is searched. The store is a plugin chosen by
 * `provider` (agentctl ships `sqlite`, in the state database).
 */
export const longTermMemorySchema = z.strictObject({
  provider: z.string().min(1).default('sqlite').describe('The long-term memory store, by its registered provider name.'),
  namespace: z.string().min(1).default('default').describe('The namespace every entry of this workflow is read from and written to.'),
  retentionDays: z.number().int().min(0).nullable().optional().describe('Days an entry written by this workflow is kept; absent or null keeps it until removed.'),
});

/** `spec.memory`. */
export const memorySchema = z.strictObject({
  working: z.record(z.string(), z.json()).default({}).describe('The initial working memory of a run: the values `memory.KEY` templates read.'),
  longTerm: longTermMemorySchema.nullable().optional(),
});

export type MemorySpec = z.output<typeof memorySchema>;
export type LongTermMemorySpec = z.output<typeof longTermMemorySchema>;
