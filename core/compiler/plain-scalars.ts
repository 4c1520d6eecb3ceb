// A string field written as a plain YAML scalar that YAML reads as another type (`true`, `1.10`, `0x1F`, `null`, `~`)
// means its text: `processAllowlist: [true]` names the program `true`. Only after a schema refuses such a value as
// "expected string" is the scalar's source text put in its place and the value parsed again, so valid documents
// cost nothing. Fields that hold JSON data (`with`, `inputs`, `vars`, schemas) accept any type and are never touched.
import { isMap, isScalar, isSeq, type Document } from 'yaml';
import type { z } from 'zod';
import type { PathSegment } from './document-path.js';

const keyOf = (path: readonly PathSegment[]) => JSON.stringify(path.map(String));

/** Path → source text of every plain scalar that YAML resolved to a boolean, number or null. */
export function plainScalarTexts(document: Document): ReadonlyMap<string, string> {
  const texts = new Map<string, string>();
  const stack: [unknown, PathSegment[]][] = [[document.contents, []]];
  while (stack.length > 0) {
    const [node, path] = stack.pop()!;
    if (isScalar(node)) {
      if (node.type === 'PLAIN' && typeof node.value !== 'string' && typeof node.source === 'string') texts.set(keyOf(path), node.source);
    } else if (isMap(node)) {
      for (const pair of node.items) if (isScalar(pair.key)) stack.push([pair.value, [...path, String(pair.key.value)]]);
    } else if (isSeq(node)) {
      node.items.forEach((item, index) => stack.push([item, [...path, index]]));
    }
  }
  return texts;
}

/** Where the texts of a document's plain scalars are found: by full path. */
export type PlainText = (path: readonly PathSegment[]) => string | undefined;

const setAt = (root: unknown, path: readonly PathSegment[], value: string): void => {
  let node = root as Record<PathSegment, unknown>;
  for (const segment of path.slice(0, -1)) node = node[segment] as Record<PathSegment, unknown>;
  node[path[path.length - 1]!] = value;
};

/**
 * Parses `value` (found at `prefix` in the document); where the schema wanted a string and the document has a plain
 * scalar of another type, the scalar's text is used instead and the value parsed again. Returns the parse result
 * and the value it was made from (the input itself when nothing was replaced).
 */
export function parseWithPlainText<Schema extends z.ZodType>(schema: Schema, value: unknown, plainText: PlainText, prefix: readonly PathSegment[] = []): { result: z.ZodSafeParseResult<z.output<Schema>>; value: unknown } {
  let current = value;
  let result = schema.safeParse(current);
  // Each round fixes every such issue zod reported; a fixed value may reveal others (inside a union, say).
  for (let round = 0; round < 8 && !result.success; round += 1) {
    const fixes: [PathSegment[], string][] = [];
    for (const issue of result.error.issues) {
      if (issue.code !== 'invalid_type' || issue.expected !== 'string') continue;
      const path = issue.path as PathSegment[];
      const text = plainText([...prefix, ...path]);
      if (text !== undefined) fixes.push([path, text]);
    }
    if (fixes.length === 0) break;
    current = structuredClone(current);
    for (const [path, text] of fixes) {
      if (path.length === 0) current = text;
      else setAt(current, path, text);
    }
    result = schema.safeParse(current);
  }
  return { result, value: current };
}

/** A PlainText over a document's map, built the first time it is asked. */
export function lazyPlainText(document: Document): PlainText {
  let texts: ReadonlyMap<string, string> | undefined;
  return (path) => (texts ??= plainScalarTexts(document)).get(keyOf(path));
}
