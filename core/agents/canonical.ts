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
