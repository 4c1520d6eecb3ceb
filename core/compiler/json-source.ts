// A workflow written as JSON (JSON is YAML) read with JSON.parse. The YAML parser costs milliseconds per kilobyte of
// flow collections in a fresh process; JSON.parse costs microseconds. Only a text whose YAML reading is known to be
// the very same value takes this path: anything else (duplicate keys, a lone carriage return, control characters,
// deep or large documents) returns undefined and is read as YAML, which then reports whatever is wrong with it.
import { MAX_DEPTH, MAX_EXPANDED_BYTES } from './expansion.js';

/**
 * Characters whose YAML reading differs from JSON's, or may: C0 and C1 controls (a tab is fine), a carriage return not
 * followed by a line feed, the byte order mark, and the Unicode line and paragraph separators.
 */
const UNSURE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029\ufeff]|\r(?!\n)/;

/**
 * A number's JSON text can grow when re-serialized (`1e20` has 4 characters, its JSON 21), so only a text this short
 * is certainly within the expansion limit.
 */
const MAX_TEXT_CHARS = Math.floor(MAX_EXPANDED_BYTES / 24);

/** The value of a workflow document that is a JSON object, when YAML would read it as the same value; else undefined. */
export function plainJsonDocument(text: string): unknown {
  if (text.length > MAX_TEXT_CHARS || !/^[ \t\r\n]*\{/.test(text) || UNSURE.test(text)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const shape = shapeOf(value);
  // JSON.parse keeps the last of duplicate keys where YAML refuses them; a collection nested near the limit is left to
  // the YAML reading, which measures it exactly.
  if (shape.depth >= MAX_DEPTH - 1 || shape.keys !== keyCount(text)) return undefined;
  return value;
}

/** How many keys the objects of a parsed value have in all, and how deep its collections nest (the top one at 0). */
function shapeOf(value: unknown): { keys: number; depth: number } {
  let keys = 0;
  let depth = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, level] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (level > depth) depth = level;
    const members = Object.values(item);
    if (!Array.isArray(item)) keys += members.length;
    for (const member of members) if (member !== null && typeof member === 'object') stack.push([member, level + 1]);
  }
  return { keys, depth };
}

/** How many keys a valid JSON text writes: a string followed by `:` is a key, and only a key is (JSON's grammar). */
function keyCount(text: string): number {
  let count = 0;
  for (let start = text.indexOf('"'); start !== -1; start = text.indexOf('"', start)) {
    let end = text.indexOf('"', start + 1);
    while (escaped(text, end)) end = text.indexOf('"', end + 1);
    let next = end + 1;
    while (text[next] === ' ' || text[next] === '\n' || text[next] === '\r' || text[next] === '\t') next += 1;
    if (text[next] === ':') count += 1;
    start = end + 1;
  }
  return count;
}

/** Whether the quote at `index` is escaped: preceded by an odd number of backslashes. */
function escaped(text: string, index: number): boolean {
  let backslashes = 0;
  while (text[index - 1 - backslashes] === '\\') backslashes += 1;
  return backslashes % 2 === 1;
}
