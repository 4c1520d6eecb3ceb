// `spec.memory`: the run's initial working memory and the long-term memory namespace its tasks may use.
import { z } from 'zod';

/** `spec.memory.longTerm.embedding`: what turns texts into the vectors `vector` and `hybrid` searches compare. */
export const memoryEmbeddingSchema = z.strictObject({
  provider: z.string().min(1).default('local_hash').describe('`local_hash` (deterministic, offline, lexical) or the name of a `spec.providers` entry.'),
  model: z.string().min(1).optional().describe("The provider entry's embedding model (required for a provider entry)."),
  dimensions: z.number().int().min(8).max(4096).default(64).describe('Vector dimensions, 8 through 4,096.'),
});

/**
 * `spec.memory.longTerm`: where long-term memory lives and how it is searched. The store is a plugin chosen by
 * `provider` (agentctl ships `sqlite`, in the state database).
 */
export const longTermMemorySchema = z.strictObject({
  provider: z.string().min(1).default('sqlite').describe('The long-term memory store, by its registered provider name.'),
  namespace: z.string().min(1).default('default').describe('The namespace every entry of this workflow is read from and written to.'),
  retentionDays: z.number().int().min(1).max(36_500).nullable().optional().describe('Days an entry written by this workflow is kept (1 through 36,500); absent or null keeps it until it is replaced.'),
  embedding: memoryEmbeddingSchema.default({ provider: 'local_hash', dimensions: 64 }).describe('The embedding of entries and queries; default `local_hash` with 64 dimensions.'),
});

/** `spec.memory`. */
export const memorySchema = z.strictObject({
  working: z.record(z.string(), z.json()).default({}).describe('The initial working memory of a run: the values `memory.KEY` templates read.'),
  longTerm: longTermMemorySchema.nullable().optional(),
});

export type MemorySpec = z.output<typeof memorySchema>;
export type LongTermMemorySpec = z.output<typeof longTermMemorySchema>;
