// How search ranks: the share of the query's words an entry has (text), the cosine of the unit vectors (vector), or
// their mean (hybrid). Only entries scoring above 0 are results; ties are ordered by key, so a ranking is stable.
import type { MemorySearchMode } from '@agentctl/sdk';

/** The words of the query, once each. */
export function queryWords(tokens: readonly string[]): Set<string> {
  return new Set(tokens);
}

/** The share (0..1) of the query's words found among an entry's words, given as ` word word ... ` (spaces around each). */
export function textScore(query: ReadonlySet<string>, entryWords: string): number {
  if (query.size === 0) return 0;
  let found = 0;
  for (const word of query) if (entryWords.includes(` ${word} `)) found += 1;
  return found / query.size;
}

/** The cosine of two unit vectors of one dimension count, below 0 counted as 0. */
export function vectorScore(query: Float32Array, entry: Float32Array): number {
  let dot = 0;
  for (let index = 0; index < query.length; index += 1) dot += query[index]! * entry[index]!;
  return dot > 0 ? Math.min(dot, 1) : 0;
}

/** An entry's score in `mode`, from whichever parts the mode reads. */
export function combinedScore(mode: MemorySearchMode, text: number, vector: number): number {
  if (mode === 'text') return text;
  if (mode === 'vector') return vector;
  return (text + vector) / 2;
}

/** Higher score first, then key order (code points). */
export function byScoreThenKey(left: { score: number; key: string }, right: { score: number; key: string }): number {
  if (left.score !== right.score) return right.score - left.score;
  return left.key < right.key ? -1 : left.key > right.key ? 1 : 0;
}
