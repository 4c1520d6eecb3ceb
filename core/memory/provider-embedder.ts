// Embeddings through a `spec.providers` entry: the entry's kind embeds the texts (under the workflow's network policy,
// with the entry's credential), and every answer is checked here before a vector reaches a store: one vector per
// text, each of exactly the dimensions asked for, every number finite. Vectors are scaled to unit length, as the
// cosine of search expects. The identity is `KIND:ENTRY`, the model and the dimensions, so a vector from another kind,
// entry, model or size is never compared with this one's (an entry that changes kind keeps its name, not its vectors).
import { EffectFailure, isEffectFailure, type EmbeddingCallContext, type MemoryEmbedder, type ModelProvider } from '@agentctl/sdk';
import { checkDimensions } from './local-hash.js';

/** Texts sent in one request at most; more are sent in several, in order. */
export const EMBEDDING_BATCH = 128;

/** What a provider embedding needs: the kind, the entry (as the kind sees it), the model and the dimensions. */
export interface ProviderEmbedding {
  readonly kind: ModelProvider;
  readonly model: string;
  readonly dimensions: number;
  /** The call context of one request (the entry's settings, credential, headers, the run's network client, bounds). */
  context(signal: AbortSignal | undefined): EmbeddingCallContext;
}

const invalid = (entry: string, message: string) => new EffectFailure('failed', 'AGENTCTL_E_PROVIDER_RESPONSE_INVALID', `embedding answer of provider ${entry}: ${message}`);

/** One answer's vectors, checked and scaled to unit length (in double precision), as float32. */
export function checkedVectors(entry: string, vectors: unknown, count: number, dimensions: number, first: number): Float32Array[] {
  if (!Array.isArray(vectors) || vectors.length !== count) {
    throw invalid(entry, `${Array.isArray(vectors) ? vectors.length : 'no'} vectors for ${count} texts`);
  }
  return vectors.map((vector: unknown, offset) => {
    const at = first + offset;
    if (!Array.isArray(vector) || vector.length !== dimensions) throw invalid(entry, `vector ${at} has ${Array.isArray(vector) ? vector.length : 'no'} numbers, not the ${dimensions} dimensions asked for`);
    let squares = 0;
    for (const value of vector as unknown[]) {
      if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid(entry, `vector ${at} holds a value that is not a finite number`);
      squares += value * value;
    }
    const norm = Math.sqrt(squares);
    if (!Number.isFinite(norm)) throw invalid(entry, `vector ${at} is too large to scale`);
    const unit = new Float32Array(dimensions);
    for (let index = 0; index < dimensions; index += 1) unit[index] = norm > 0 ? (vector[index] as number) / norm : 0;
    return unit;
  });
}

/**
 * An embedding changes nothing at the provider, and nothing is stored before its answer: a request that got no answer
 * (a timeout, a lost connection) is a definite failure of the write or search, never an effect in doubt.
 */
async function definite<T>(entry: string, signal: AbortSignal | undefined, request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    // A deadline (a TimeoutError reason) cut the request: the task's timeout, not a cancellation by the operator.
    const reason: unknown = signal?.aborted ? signal.reason : undefined;
    if (reason instanceof Error && reason.name === 'TimeoutError') {
      throw new EffectFailure('failed', 'AGENTCTL_E_TASK_TIMEOUT', `the embedding request of provider ${entry} got no answer within the ${reason.message}; nothing was stored`, { cause: error });
    }
    if (isEffectFailure(error) && error.outcome === 'uncertain') throw new EffectFailure('failed', error.code, error.message, { cause: error, ...(error.details ? { details: error.details } : {}) });
    throw error;
  }
}

/** The `provider` of the identity of the vectors entry `entry` of kind `kind` makes: `KIND:ENTRY`. */
export const providerIdentity = (kind: string, entry: string): string => `${kind}:${entry}`;

/** The embedder of provider entry `entry`. Nothing is sent until `embed` is called. */
export function providerEmbedder(entry: string, embedding: ProviderEmbedding): MemoryEmbedder {
  const { kind, model, dimensions } = embedding;
  checkDimensions(dimensions);
  return Object.freeze({
    identity: Object.freeze({ provider: providerIdentity(kind.kind, entry), model, dimensions }),
    async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
      if (!kind.embed) throw new EffectFailure('failed', 'AGENTCTL_E_MEMORY_EMBEDDING_UNSUPPORTED', `provider kind ${kind.kind} does not compute embeddings`);
      const vectors: Float32Array[] = [];
      for (let first = 0; first < texts.length; first += EMBEDDING_BATCH) {
        const batch = texts.slice(first, first + EMBEDDING_BATCH);
        const answer = await definite(entry, signal, () => kind.embed!({ model, texts: batch, dimensions }, embedding.context(signal)));
        vectors.push(...checkedVectors(entry, answer?.vectors, batch.length, dimensions, first));
      }
      return vectors;
    },
  });
}
