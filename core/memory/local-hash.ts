// The `local_hash` embedding: each word of a text, hashed into one signed dimension, the sum scaled to unit length.
// Deterministic and offline, but lexical: texts sharing no word are orthogonal whatever they mean.
import { createHash } from 'node:crypto';
import { AgentctlError, MEMORY_LIMITS, type MemoryEmbedder } from '@agentctl/sdk';

/** The words of a text: runs of letters and digits (any script), lower-cased. */
export function memoryTokens(text: string): string[] {
  return text
    .split(/[^\p{Alphabetic}\p{N}]+/u)
    .filter((token) => token !== '')
    .map((token) => token.toLowerCase());
}

/** Refuses a dimension count outside 8..4096 (AGENTCTL_E_MEMORY_INVALID). */
export function checkDimensions(dimensions: number): void {
  if (!Number.isInteger(dimensions) || dimensions < MEMORY_LIMITS.minDimensions || dimensions > MEMORY_LIMITS.maxDimensions) {
    throw new AgentctlError('AGENTCTL_E_MEMORY_INVALID', `embedding dimensions ${dimensions} must be between ${MEMORY_LIMITS.minDimensions} and ${MEMORY_LIMITS.maxDimensions}`);
  }
}

/**
 * A word's dimension is the first two bytes of its SHA-256 (big-endian) modulo the dimension count, and its sign the
 * low bit of the third byte (0: +1). The sum is divided by its Euclidean norm (in double precision), then stored as float32.
 */
export function localHashEmbedding(text: string, dimensions: number): Float32Array {
  checkDimensions(dimensions);
  const sums = new Float64Array(dimensions);
  for (const token of memoryTokens(text)) {
    const digest = createHash('sha256').update(token, 'utf8').digest();
    const index = ((digest[0]! << 8) | digest[1]!) % dimensions;
    sums[index]! += (digest[2]! & 1) === 0 ? 1 : -1;
  }
  let squares = 0;
  for (const value of sums) squares += value * value;
  const norm = Math.sqrt(squares);
  const vector = new Float32Array(dimensions);
  for (let index = 0; index < dimensions; index += 1) vector[index] = norm > 0 ? sums[index]! / norm : 0;
  return vector;
}

/** The `local_hash` embedder of `dimensions`. */
export function localHashEmbedder(dimensions: number): MemoryEmbedder {
  checkDimensions(dimensions);
  return Object.freeze({
    identity: Object.freeze({ provider: 'local_hash', model: null, dimensions }),
    embed: async (texts: readonly string[]) => texts.map((text) => localHashEmbedding(text, dimensions)),
  });
}
