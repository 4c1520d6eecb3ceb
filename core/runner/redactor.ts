// Redaction of secret values: the forms a value takes in output, and one linear pass that replaces them all.
import type { RedactOptions } from '@agentctl/sdk';
import { PatternMatcher, type Ranges } from './pattern-matcher.js';

export const REDACTED = '[REDACTED]';


const isHighSurrogate = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;

/** A secret, or a line of one, shorter than this (in characters, surrounding whitespace ignored) cannot be redacted safely. */
export const MIN_SECRET_LENGTH = 4;

/** True when the value, without surrounding whitespace, has fewer than MIN_SECRET_LENGTH characters. */
export function tooShortToRedact(value: string): boolean {
  let count = 0;
  for (const _character of value.trim()) if (++count >= MIN_SECRET_LENGTH) return false;
  return true;
}

/** The inside of a JSON string literal, as JSON.stringify writes it. */
const jsonEscaped = (text: string) => JSON.stringify(text).slice(1, -1);

/**
 * The inside of an ASCII-only JSON string literal, as Python's `json.dumps` writes it by default: every character
 * outside printable ASCII as `\uXXXX` (astral characters as their surrogate pair), in lower or upper case hex.
 */
function asciiEscaped(text: string, upper: boolean): string {
  return jsonEscaped(text).replace(/[^\x20-\x7e]/g, (character) => {
    const hex = character.charCodeAt(0).toString(16).padStart(4, '0');
    return `\\u${upper ? hex.toUpperCase() : hex}`;
  });
}

/**
 * Every text a secret value may be printed as: the value, with `\n` or `\r\n` line endings, trimmed, and each line
 * (trimmed) of a multi-line value that is long enough on its own; each of these as it is, JSON-escaped, JSON-escaped
 * twice and ASCII-escaped (`\uXXXX`, lower and upper case).
 */
export function formsOf(value: string): string[] {
  const unix = value.replace(/\r\n?/g, '\n');
  const windows = unix.replace(/\n/g, '\r\n');
  const sources = new Set([value, unix, windows].flatMap((text) => [text, text.trim()]));
  for (const line of unix.split('\n')) sources.add(line.trim());
  const forms = new Set<string>();
  for (const source of sources) {
    if (tooShortToRedact(source)) continue;
    const escaped = jsonEscaped(source);
    for (const form of [source, escaped, jsonEscaped(escaped), asciiEscaped(source, false), asciiEscaped(source, true), jsonEscaped(asciiEscaped(source, false))]) forms.add(form);
  }
  return [...forms];
}

/**
 * Replaces every form of every known secret value with `[REDACTED]`. All matches are found in one pass over the
 * original text and overlapping or adjacent ones merged, so two overlapping secrets cannot leave a piece of either.
 */
export class Redactor {
  readonly #values = new Set<string>();
  readonly #patterns = new Set<string>();
  #matcher: PatternMatcher | undefined;

  /** Adds a value; one too short to redact safely adds nothing (the run refuses such a value before it starts). */
  add(value: string): void {
    if (this.#values.has(value) || tooShortToRedact(value)) return;
    this.#values.add(value);
    for (const form of formsOf(value)) this.#patterns.add(form);
    this.#matcher = undefined;
  }

  /** How many distinct texts are redacted. */
  get size(): number {
    return this.#patterns.size;
  }

  #replace(text: string, tail: boolean): string {
    if (this.#patterns.size === 0 || text.length === 0) return text;
    this.#matcher ??= new PatternMatcher([...this.#patterns]);
    return replaceRanges(text, this.#matcher.ranges(text, tail));
  }

  redact = (text: string): string => this.#replace(text, false);

  /** For output cut at a limit, a timeout or a cancellation: also hides an end of the text that begins a secret. */
  redactTruncated = (text: string): string => this.#replace(text, true);

  /**
   * Text shortened to at most `limit` characters (then `…`) for a message. Redacted first: a secret cut before its
   * redaction leaves a piece the redactor no longer recognizes. The cut never splits a `[REDACTED]` mark or a
   * surrogate pair, and an end of the cut text that begins a secret is hidden too.
   */
  shorten = (text: string, limit: number): string => {
    const redacted = this.redact(text);
    if (redacted.length <= limit) return redacted;
    let end = Math.max(0, limit);
    const mark = redacted.lastIndexOf(REDACTED, end - 1);
    if (mark >= 0 && mark + REDACTED.length > end) end = mark;
    else if (end > 0 && isHighSurrogate(redacted.charCodeAt(end - 1))) end -= 1;
    return `${this.redactTruncated(redacted.slice(0, end))}…`;
  };

  /** The one entry point of plugins (`context.redact`): `limit` shortens (see `shorten`), `truncated` marks text cut before. */
  text = (text: string, options: RedactOptions = {}): string => {
    if (options.limit !== undefined) return this.shorten(text, options.limit);
    return options.truncated ? this.redactTruncated(text) : this.redact(text);
  };

  /** Redacts every string value inside a JSON value; keys and structure are kept, so the result stays valid JSON. */
  redactValue = <T>(value: T): T => (this.#patterns.size === 0 ? value : (mapStrings(value, this.redact) as T));
}

/**
 * A copy of a JSON-like value with every string replaced, keys in their order. Iterative: a value nested deeper
 * than the stack allows is copied all the same (recording it must never fail halfway).
 */
function mapStrings(value: unknown, replace: (text: string) => string): unknown {
  const copy = (item: unknown): unknown => {
    if (typeof item === 'string') return replace(item);
    if (item === null || typeof item !== 'object') return item;
    const target: object = Array.isArray(item) ? new Array<unknown>(item.length) : {};
    pending.push(item, target);
    return target;
  };
  // Pairs (source, copy) whose members are still to be copied.
  const pending: object[] = [];
  const root = copy(value);
  while (pending.length > 0) {
    const target = pending.pop() as Record<string, unknown>;
    const source = pending.pop() as Record<string, unknown>;
    if (Array.isArray(source)) {
      for (let index = 0; index < source.length; index += 1) target[index] = copy(source[index]);
      continue;
    }
    for (const [key, inner] of Object.entries(source)) {
      // A "__proto__" key (JSON.parse makes it a plain member) is defined: assigned, it would set the prototype.
      if (key === '__proto__') Object.defineProperty(target, key, { value: copy(inner), enumerable: true, writable: true, configurable: true });
      else target[key] = copy(inner);
    }
  }
  return root;
}

function replaceRanges(text: string, ranges: Ranges): string {
  if (ranges.starts.length === 0) return text;
  const pieces: string[] = [];
  let cursor = 0;
  ranges.starts.forEach((start, index) => {
    pieces.push(text.slice(cursor, start), REDACTED);
    cursor = ranges.ends[index]!;
  });
  pieces.push(text.slice(cursor));
  return pieces.join('');
}
