// The JSON texts of an agent's requests without serializing the whole conversation again at every turn. Each request
// holds every message so far; the texts of the parts the loop has frozen are remembered, so a turn adds only what is
// new. Two texts: `text` is exactly `canonicalJson`'s (effect ids and digests depend on it), `json` exactly
// `JSON.stringify`'s (what the ledger records); a frozen value cannot change either.
import { canonicalJson, type JsonValue } from '@agentctl/sdk';

/** How deep `text` recurses before it hands the rest of a value to the iterative canonicalJson. */
const RECURSION_LIMIT = 256;

export class CanonicalMemo {
  readonly #texts = new WeakMap<object, string>();
  readonly #jsonTexts = new WeakMap<object, string>();
  /** Values this memo froze: their texts may be remembered. */
  readonly #frozen = new WeakSet<object>();
  /** Values that could not be copied or frozen: used as they are, and never frozen through a value that holds them. */
  readonly #opaque = new WeakSet<object>();

  /**
   * A frozen copy of `value` (whose text is remembered from then on), so that what its owner does later with the
   * original cannot change the conversation. Plain JSON data is copied in one pass, anything else by structuredClone; a
   * value structuredClone or freezing refuses is returned as it is.
   */
  own<T>(value: T): T {
    if (value === null || typeof value !== 'object') return value;
    try {
      const plain = this.#copyPlain(value);
      if (plain === undefined) return this.seal(structuredClone(value));
      // Its JSON text by the native serializer, once: the same text `json` would write, for far less work.
      if (!this.#jsonTexts.has(plain)) this.#jsonTexts.set(plain, JSON.stringify(plain));
      return plain as T;
    } catch {
      this.#opaque.add(value);
      return value;
    }
  }

  /**
   * A frozen copy of plain JSON data (plain objects and arrays of scalars and plain data) in one pass, or undefined when
   * `value` holds anything else (undefined, a hole, a Date, a class instance ...), which structuredClone then copies.
   */
  #copyPlain(value: object): object | undefined {
    if (this.#frozen.has(value)) return value;
    let copy: unknown[] | Record<string, unknown>;
    if (Array.isArray(value)) {
      const list: unknown[] = new Array(value.length);
      for (let index = 0; index < value.length; index += 1) {
        const inner = this.#copyMember(value[index]);
        if (inner === undefined) return undefined;
        list[index] = inner;
      }
      copy = list;
    } else {
      const prototype = Object.getPrototypeOf(value);
      if (prototype !== Object.prototype && prototype !== null) return undefined;
      const object: Record<string, unknown> = {};
      for (const key of Object.keys(value)) {
        const inner = this.#copyMember((value as Record<string, unknown>)[key]);
        if (inner === undefined) return undefined;
        object[key] = inner;
      }
      copy = object;
    }
    Object.freeze(copy);
    this.#frozen.add(copy);
    return copy;
  }

  #copyMember(value: unknown): unknown {
    if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
    return typeof value === 'object' ? this.#copyPlain(value) : undefined;
  }

  /** The last list `list` made: its items and their texts joined, so that the next list only adds its new items. */
  #list: { readonly items: readonly unknown[]; readonly joined: string; readonly joinedJson: string } | undefined;

  /**
   * A frozen copy of `items`, like `seal([...items])`, for a list that grows by appending (the conversation of each
   * turn's request). Items this memo owns or sealed that the previous list also began with are neither walked again
   * nor serialized again: the copy's text is the previous one's plus the texts of the new items.
   */
  list<T>(items: readonly T[]): T[] {
    const copy = [...items];
    const last = this.#list;
    let start = 0;
    if (last && last.items.length <= copy.length) {
      start = last.items.length;
      for (let index = 0; index < start; index += 1) {
        if (last.items[index] !== copy[index]) {
          start = 0;
          break;
        }
      }
    }
    let joined = start > 0 ? last!.joined : '';
    let joinedJson = start > 0 ? last!.joinedJson : '';
    for (let index = start; index < copy.length; index += 1) {
      const item = copy[index];
      // Only a value this memo froze keeps its text; anything else is left to `seal`, and the text computed each time.
      if (item !== null && typeof item === 'object' && !this.#frozen.has(item)) return this.seal(copy);
      // As Array.prototype.join writes a member without JSON text (undefined): nothing; JSON.stringify writes null.
      const text = this.text(item as JsonValue) ?? '';
      const json = this.json(item as JsonValue) ?? 'null';
      joined = index === 0 ? text : `${joined},${text}`;
      joinedJson = index === 0 ? json : `${joinedJson},${json}`;
    }
    Object.freeze(copy);
    this.#frozen.add(copy);
    this.#texts.set(copy, `[${joined}]`);
    this.#jsonTexts.set(copy, `[${joinedJson}]`);
    this.#list = { items: copy, joined, joinedJson };
    return copy;
  }

  /**
   * Freezes `value`, which the caller built itself from scalars, owned values and other values it built, and everything
   * in it. A value holding something it could not own stays unfrozen (its text is then computed every time).
   */
  seal<T>(value: T): T {
    if (this.#sealable(value)) this.#freeze(value);
    return value;
  }

  /** `canonicalJson(value)`: sorted keys at every level, the remembered text of a frozen part. */
  text = (value: JsonValue): string => this.#text(value, 0);

  #text(value: JsonValue, depth: number): string {
    if (value === null || typeof value !== 'object') return JSON.stringify(value);
    const known = this.#texts.get(value);
    if (known !== undefined) return known;
    // Below this depth nothing is remembered: canonicalJson (iterative) writes the rest, so no depth overflows.
    if (depth >= RECURSION_LIMIT) return canonicalJson(value);
    let text: string;
    if (Array.isArray(value)) text = `[${value.map((item) => this.#text(item, depth + 1)).join(',')}]`;
    else {
      const keys = Object.keys(value).sort();
      text = `{${keys.map((key) => `${JSON.stringify(key)}:${this.#text(value[key]!, depth + 1)}`).join(',')}}`;
    }
    if (this.#frozen.has(value)) this.#texts.set(value, text);
    return text;
  }

  /**
   * `JSON.stringify(value)`, with the remembered text of a frozen part. Plain objects and arrays are written here (keys
   * in JSON.stringify's order, members without JSON text left out of objects and written as null in arrays); anything
   * else, such as a value with a toJSON method, is left to JSON.stringify.
   */
  json = (value: JsonValue): string => {
    if (value === null || typeof value !== 'object') return JSON.stringify(value);
    const known = this.#jsonTexts.get(value);
    if (known !== undefined) return known;
    let text: string;
    if (Array.isArray(value) && !hasToJson(value)) {
      // By index: a hole is written as null, as JSON.stringify does (map would skip it).
      const items: string[] = [];
      for (let index = 0; index < value.length; index += 1) {
        const item: unknown = value[index];
        items.push(hasJsonText(item) ? this.json(item) : 'null');
      }
      text = `[${items.join(',')}]`;
    } else if (!Array.isArray(value) && isPlainObject(value)) {
      const members: string[] = [];
      for (const key of Object.keys(value)) {
        const inner = value[key];
        if (hasJsonText(inner)) members.push(`${JSON.stringify(key)}:${this.json(inner)}`);
      }
      text = `{${members.join(',')}}`;
    } else return JSON.stringify(value);
    if (this.#frozen.has(value)) this.#jsonTexts.set(value, text);
    return text;
  };

  #sealable(value: unknown): boolean {
    if (value === null || typeof value !== 'object' || this.#frozen.has(value)) return true;
    if (this.#opaque.has(value)) return false;
    return Object.values(value).every((inner) => this.#sealable(inner));
  }

  #freeze(value: unknown): void {
    if (value === null || typeof value !== 'object' || this.#frozen.has(value)) return;
    for (const inner of Object.values(value)) this.#freeze(inner);
    Object.freeze(value);
    this.#frozen.add(value);
  }
}

/** Whether JSON.stringify writes something for this member (it leaves out undefined, functions and symbols). */
const hasJsonText = (value: unknown): value is JsonValue => value !== undefined && typeof value !== 'function' && typeof value !== 'symbol';

/** An object JSON.stringify writes member by member: no toJSON, a plain prototype (so no boxed primitive either). */
function isPlainObject(value: object): value is Record<string, JsonValue> {
  const prototype = Object.getPrototypeOf(value);
  return (prototype === Object.prototype || prototype === null) && !hasToJson(value);
}

const hasToJson = (value: object) => typeof (value as { toJSON?: unknown }).toJSON === 'function';
