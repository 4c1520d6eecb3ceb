// JSON value types shared by every part of the contract, and the bounds every JSON answer from outside is read with.

/** Any value that survives a JSON round trip. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** An open array or object of `canonicalJson`: the members written so far, and (objects) the keys in sorted order. */
interface Open {
  readonly container: JsonValue[] | JsonObject;
  readonly keys: string[] | undefined;
  index: number;
}

/**
 * JSON text with object keys sorted at every level: equal values give equal text, whatever order their keys were
 * written in. Digests (effect ids, schema digests) are taken of it. Iterative: no nesting depth overflows the stack.
 */
export function canonicalJson(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const open: Open[] = [];
  let text = '';
  let next: JsonValue = value;
  for (;;) {
    // A member without JSON text (undefined) is written as the recursive definition did: empty in an array, as
    // `undefined` in an object (not JSON either way; JsonValue has no such member).
    if (next === null || typeof next !== 'object') text += (JSON.stringify(next) as string | undefined) ?? (open[open.length - 1]!.keys ? 'undefined' : '');
    else if (Array.isArray(next)) {
      text += '[';
      open.push({ container: next, keys: undefined, index: 0 });
    } else {
      text += '{';
      open.push({ container: next, keys: Object.keys(next).sort(), index: 0 });
    }
    // The next member to write, closing every container that has none left.
    for (;;) {
      const top = open[open.length - 1];
      if (top === undefined) return text;
      const { container, keys } = top;
      if (top.index >= (keys ?? (container as JsonValue[])).length) {
        text += keys ? '}' : ']';
        open.pop();
        continue;
      }
      if (top.index > 0) text += ',';
      if (keys) {
        const key = keys[top.index]!;
        text += `${JSON.stringify(key)}:`;
        next = (container as JsonObject)[key]!;
      } else next = (container as JsonValue[])[top.index]!;
      top.index += 1;
      break;
    }
  }
}

/**
 * How deep a JSON answer from outside agentctl (an extension, an MCP server, a model) may nest: as deep as a workflow
 * document, 64 levels of arrays and objects. Deeper values are refused where they are parsed, before anything records,
 * digests or serializes them.
 */
export const MAX_JSON_DEPTH = 64;

/** True when a JSON-like value nests arrays and objects more than `limit` levels deep. Iterative, so it cannot overflow. */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const items: unknown[] = [value];
  const depths: number[] = [0];
  while (items.length > 0) {
    const item = items.pop();
    const depth = depths.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth >= limit) return true;
    for (const inner of Object.values(item)) {
      if (inner === null || typeof inner !== 'object') continue;
      items.push(inner);
      depths.push(depth + 1);
    }
  }
  return false;
}

/** What `parseJsonAnswer` throws for a value nested too deeply; a SyntaxError, like any other unreadable JSON. */
export class JsonDepthError extends SyntaxError {
  constructor(readonly limit: number) {
    super(`the JSON nests more than ${limit} levels deep`);
    this.name = 'JsonDepthError';
  }
}

/**
 * JSON.parse for an answer from outside agentctl: also refuses (JsonDepthError) a value nested more than `maxDepth`
 * levels, which recording, digesting or serializing would otherwise have to walk.
 */
export function parseJsonAnswer(text: string, maxDepth = MAX_JSON_DEPTH): unknown {
  const value: unknown = JSON.parse(text);
  if (nestsDeeperThan(value, maxDepth)) throw new JsonDepthError(maxDepth);
  return value;
}
