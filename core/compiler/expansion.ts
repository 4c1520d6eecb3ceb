// Bounds what a YAML document becomes once its aliases are expanded, before anything expands it. Each node's JSON
// size and height are computed once and memoised, so an alias costs a lookup: a "billion laughs" document is refused
// after a walk of its text, never materialised.
import { isAlias, isMap, isPair, isScalar, isSeq, type Document, type Node } from 'yaml';
import { MAX_JSON_DEPTH } from '@agentctl/sdk';

/** At most this much JSON once aliases are expanded (SPEC §2). */
export const MAX_EXPANDED_BYTES = 4 * 1024 * 1024;

/** Deeper documents are refused: every later step walks values. The same bound as JSON answers from outside. */
export const MAX_DEPTH = MAX_JSON_DEPTH;

export class ExpansionError extends Error {
  constructor(
    message: string,
    /** Offset in the text of the node where the limit was crossed. */
    readonly offset: number,
  ) {
    super(message);
  }
}

export const tooLargeMessage = (maxBytes: number) => `the document expands to more than ${maxBytes} bytes (${maxBytes / 1024 / 1024} MiB) of JSON once its YAML aliases are expanded`;

interface Measure {
  readonly size: number;
  readonly height: number;
}

/** Throws ExpansionError when the expanded document exceeds `maxBytes` of JSON or nests deeper than `maxDepth`. */
export function checkExpansion(document: Document, maxBytes = MAX_EXPANDED_BYTES, maxDepth = MAX_DEPTH): { bytes: number; aliases: number } {
  const measured = new Map<unknown, Measure>();
  const inProgress = new Set<unknown>();
  const anchors = new Map<string, unknown>();
  let aliases = 0;

  const offsetOf = (node: unknown) => (node as { range?: [number, number, number] } | null)?.range?.[0] ?? 0;
  const bounded = (size: number, node: unknown) => {
    if (size > maxBytes) {
      throw new ExpansionError(tooLargeMessage(maxBytes), offsetOf(node));
    }
    return size;
  };

  // Recursion is bounded: a collection at depth maxDepth is refused before its children are visited.
  const measure = (node: unknown, depth: number): Measure => {
    if (isAlias(node)) {
      aliases += 1;
      const target = anchors.get(node.source);
      if (target === undefined) throw new ExpansionError(`alias *${node.source} refers to no anchor defined before it`, offsetOf(node));
      if (inProgress.has(target)) throw new ExpansionError(`alias *${node.source} refers to the node that contains it`, offsetOf(node));
      const found = measured.get(target)!;
      if (depth + found.height > maxDepth) throw new ExpansionError(`values are nested more than ${maxDepth} levels deep once alias *${node.source} is expanded`, offsetOf(node));
      return found;
    }
    const anchor = (node as { anchor?: string } | null)?.anchor;
    if (anchor) anchors.set(anchor, node);
    inProgress.add(node);
    let result: Measure;
    if (isMap(node) || isSeq(node)) {
      if (depth >= maxDepth) throw new ExpansionError(`values are nested more than ${maxDepth} levels deep`, offsetOf(node));
      let size = 2 + Math.max(0, node.items.length - 1);
      let height = 0;
      for (const item of node.items) {
        if (isPair(item)) {
          // Keys become JSON strings; a key that is itself a collection is refused by the schema later.
          const key = item.key === null ? { size: 2, height: 0 } : measure(item.key, depth + 1);
          const value = item.value === null ? { size: 4, height: 0 } : measure(item.value, depth + 1);
          size = bounded(size + keySize(item.key, key.size) + 1 + value.size, item.value ?? item.key);
          height = Math.max(height, value.height);
        } else {
          const value = measure(item, depth + 1);
          size = bounded(size + value.size, item);
          height = Math.max(height, value.height);
        }
      }
      result = { size, height: height + 1 };
    } else if (isScalar(node)) {
      result = { size: bounded(scalarSize(node.value), node), height: 0 };
    } else {
      result = { size: 4, height: 0 };
    }
    inProgress.delete(node);
    measured.set(node, result);
    return result;
  };

  const top = document.contents === null ? { size: 4 } : measure(document.contents as Node, 0);
  return { bytes: top.size, aliases };
}

function keySize(key: unknown, measured: number): number {
  if (isScalar(key) && typeof key.value !== 'string') return scalarSize(String(key.value));
  return measured;
}

function scalarSize(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(JSON.stringify(value));
  const text = JSON.stringify(value);
  return text === undefined ? 4 : text.length;
}
