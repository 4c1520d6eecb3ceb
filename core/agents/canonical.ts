// Canonical JSON of an agent's requests without serializing the whole conversation again at every turn. Each request
// holds every message so far; the texts of the parts the loop has frozen are remembered, so a turn adds only what is
// new. The text is exactly `canonicalJson`'s (effect ids and digests depend on it), which a frozen value cannot change.
import type { JsonValue } from '../../sdk/index.js';

export class CanonicalMemo {
  readonly #texts = new WeakMap<object, string>();
  /** Values this memo froze: their texts may be remembered. */
  readonly #frozen = new WeakSet<object>();
  /** Values that could not be copied or frozen: used as they are, and never frozen through a value that holds them. */
  readonly #opaque = new WeakSet<object>();

  /**
   * A frozen copy of `value` (whose text is remembered from then on), so that what its owner does later with the
   * original cannot change the conversation. A value structuredClone or freezing refuses is returned as it is.
   */
  own<T>(value: T): T {
    if (value === null || typeof value !== 'object') return value;
    try {
      return this.seal(structuredClone(value));
    } catch {
      this.#opaque.add(value);
      return value;
    }
  }

  /** The last list `list` made: its items and their texts joined, so that the next list only adds its new items. */
  #list: { readonly items: readonly unknown[]; readonly joined: string } | undefined;

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
    for (let index = start; index < copy.length; index += 1) {
      const item = copy[index];
      // Only a value this memo froze keeps its text; anything else is left to `seal`, and the text computed each time.
      if (item !== null && typeof item === 'object' && !this.#frozen.has(item)) return this.seal(copy);
      // As Array.prototype.join writes a member without JSON text (undefined): nothing.
      const text = this.text(item as JsonValue) ?? '';
      joined = index === 0 ? text : `${joined},${text}`;
    }
    Object.freeze(copy);
    this.#frozen.add(copy);
    this.#texts.set(copy, `[${joined}]`);
    this.#list = { items: copy, joined };
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
  text = (value: JsonValue): string => {
    if (value === null || typeof value !== 'object') return JSON.stringify(value);
    const known = this.#texts.get(value);
    if (known !== undefined) return known;
    let text: string;
    if (Array.isArray(value)) text = `[${value.map((item) => this.text(item)).join(',')}]`;
    else {
      const keys = Object.keys(value).sort();
      text = `{${keys.map((key) => `${JSON.stringify(key)}:${this.text(value[key]!)}`).join(',')}}`;
    }
    if (this.#frozen.has(value)) this.#texts.set(value, text);
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
