// Embeddings of the `fake` kind: deterministic and offline, so credential-free workflows and tests can embed through
// a provider entry. Each word (a run of letters and digits, lower-cased) adds ±1 to one dimension chosen by the
// SHA-256 of the model name and the word: texts sharing words are similar, and two models never agree by chance.
import { createHash } from 'node:crypto';
import type { EmbeddingRequest, EmbeddingResponse } from '@agentctl/sdk';

function fakeVector(model: string, text: string, dimensions: number): number[] {
  const sums: number[] = new Array<number>(dimensions).fill(0);
  const words = text.split(/[^\p{Alphabetic}\p{N}]+/u).filter((word) => word !== '');
  for (const word of words) {
    const digest = createHash('sha256').update(`${model}\u0000${word.toLowerCase()}`, 'utf8').digest();
    const index = digest.readUInt32BE(0) % dimensions;
    sums[index]! += (digest[4]! & 1) === 0 ? 1 : -1;
  }
  return sums;
}

export async function embedFake(request: EmbeddingRequest): Promise<EmbeddingResponse> {
  const vectors = request.texts.map((text) => fakeVector(request.model, text, request.dimensions));
  const tokens = request.texts.reduce((total, text) => total + Math.max(1, Math.ceil(text.length / 4)), 0);
  return { vectors, usage: { inputTokens: tokens, totalTokens: tokens }, model: request.model };
}
