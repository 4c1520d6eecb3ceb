// A lower bound of what a YAML text expands to, read from the text itself before `yaml` parses it. Parsing a 1 MiB
// document takes seconds; an alias bomb is refused from this bound in milliseconds. The bound counts only what the
// expanded JSON certainly holds: each scalar's smallest JSON form, and for each alias the bound of the node its anchor
// names. What the scan cannot place with certainty counts nothing, and text it does not model (tags, directives, tab
// indentation) stops the scan without a verdict. The exact check on the parsed document (expansion.ts) stays the rule
// for everything refused or not here: this only refuses, sooner, documents that the exact check would refuse too.

const NEWLINE = 10;
const CR = 13;
const SPACE = 32;
const TAB = 9;

/** The text uses something the scan does not model: no verdict. */
const BAIL = Symbol('bail');

class Crossed {
  constructor(readonly offset: number) {}
}

/** An anchored node being measured (or the document itself, at the bottom of the stack). */
interface Frame {
  readonly name: string | null;
  /** How many nodes had taken an anchor when this one opened. */
  readonly anchored: number;
  total: number;
  /** block: lines indented at most this much end the node; flow: the bracket depth that closes it. */
  readonly kind: 'document' | 'block' | 'flow';
  readonly level: number;
}

/**
 * The offset of the scalar or alias at which the expanded document certainly passes `limit` bytes of JSON, or
 * undefined when the scan cannot tell (the exact check then decides).
 */
export function expansionPassesAt(text: string, limit: number): number | undefined {
  if (!text.includes('*') || /\r(?!\n)/.test(text)) return undefined;
  try {
    new Scan(text, limit).document();
    return undefined;
  } catch (error) {
    if (error instanceof Crossed) return error.offset;
    if (error === BAIL) return undefined;
    throw error;
  }
}

const isBlank = (code: number) => code === SPACE || code === TAB || code === CR;
const isSpace = (code: number) => isBlank(code) || code === NEWLINE;
/** `,[]{}`: they end anchor names and plain scalars inside flow collections. */
/** `"`, `'`, `]`, `}`: after a quoted scalar or a flow collection, a value indicator needs no space. */
const isJsonLikeEnd = (code: number) => code === 34 || code === 39 || code === 93 || code === 125;
const isFlowIndicator = (code: number) => code === 44 || code === 91 || code === 93 || code === 123 || code === 125;

/**
 * The smallest JSON a plain scalar can become (core schema), from its first character and its count of non-blank
 * characters: a word that cannot be null, a boolean or a number is a string of at least those characters and two
 * quotes; anything else counts one byte.
 */
function plainBound(first: number, characters: number): number {
  // digits, '+', '-', '.', '~'
  if ((first >= 48 && first <= 57) || first === 43 || first === 45 || first === 46 || first === 126) return 1;
  // 'n', 'N', 't', 'T', 'f', 'F': null, true and false in their spellings
  if (characters <= 5 && (first === 110 || first === 78 || first === 116 || first === 84 || first === 102 || first === 70)) return 1;
  return characters + 2;
}

/** Non-blank characters of text[start, end), counted without copying it. */
function solid(text: string, start: number, end: number): number {
  let count = 0;
  for (let index = start; index < end; index += 1) if (!isSpace(text.charCodeAt(index))) count += 1;
  return count;
}

class Scan {
  readonly #anchors = new Map<string, number>();
  readonly #frames: Frame[] = [{ name: null, anchored: 0, total: 0, kind: 'document', level: -1 }];
  /** Per name, the count of anchored nodes when it was last defined: an alias names the last node anchored before it. */
  readonly #definedAt = new Map<string, number>();
  #anchored = 0;
  #total = 0;
  /** An anchor seen, its node not yet started. */
  #pending: string | null = null;
  /** The column of the collection that owns a node beginning at the start of the next line, if known. */
  #opener: number | undefined;
  /** Lines indented more than this belong to a block scalar or a multi-line plain scalar: never structure. */
  #skipAbove: number | undefined;

  constructor(
    readonly text: string,
    readonly limit: number,
  ) {}

  #add(bytes: number, offset: number): void {
    this.#frames.at(-1)!.total += bytes;
    this.#total += bytes;
    if (this.#total > this.limit) throw new Crossed(offset);
  }

  /** A completed scalar of at least `bytes` of JSON; it takes the pending anchor. */
  #scalar(bytes: number, offset: number): void {
    if (this.#pending !== null) this.#define(this.#pending, bytes);
    this.#pending = null;
    this.#add(bytes, offset);
  }

  /** An anchor on an empty node, or on no node at all, names nothing bigger than null: never an older node. */
  #anchorNothing(): void {
    if (this.#pending !== null) this.#define(this.#pending, 0);
    this.#pending = null;
  }

  #define(name: string, bytes: number, anchored = (this.#anchored += 1)): void {
    this.#anchors.set(name, bytes);
    this.#definedAt.set(name, anchored);
  }

  #anchor(name: string): void {
    this.#anchorNothing();
    this.#pending = name;
  }

  #alias(name: string, offset: number): void {
    this.#anchorNothing();
    // An alias inside the node its anchor names is an error of its own (the exact check reports it): it counts nothing.
    if (this.#frames.some((frame) => frame.name === name)) return;
    this.#add(this.#anchors.get(name) ?? 0, offset);
  }

  #open(kind: 'block' | 'flow', level: number): void {
    this.#anchored += 1;
    this.#frames.push({ name: this.#pending, anchored: this.#anchored, total: 0, kind, level });
    this.#pending = null;
  }

  #close(): void {
    const frame = this.#frames.pop()!;
    // A node inside it that took the same name comes later in document order: aliases after both name that one.
    if (frame.name !== null && (this.#definedAt.get(frame.name) ?? 0) < frame.anchored) this.#define(frame.name, frame.total, frame.anchored);
    this.#frames.at(-1)!.total += frame.total;
  }

  /** The end of an anchor or alias name. */
  #name(start: number): number {
    let end = start;
    while (end < this.text.length && !isSpace(this.text.charCodeAt(end)) && !isFlowIndicator(this.text.charCodeAt(end))) end += 1;
    if (end === start) throw BAIL;
    return end;
  }

  document(): void {
    const text = this.text;
    let position = 0;
    while (position < text.length) {
      let lineEnd = text.indexOf('\n', position);
      if (lineEnd < 0) lineEnd = text.length;
      let first = position;
      while (first < lineEnd && text.charCodeAt(first) === SPACE) first += 1;
      const indent = first - position;
      let content = first;
      while (content < lineEnd && isBlank(text.charCodeAt(content))) content += 1;
      const blank = content >= lineEnd || text.charCodeAt(content) === 35; // '#'
      if (this.#skipAbove !== undefined) {
        if (blank || indent > this.#skipAbove) {
          position = lineEnd + 1;
          continue;
        }
        this.#skipAbove = undefined;
      }
      if (blank) {
        position = lineEnd + 1;
        continue;
      }
      if (content !== first) throw BAIL; // a tab in the indentation
      while (this.#frames.at(-1)!.kind === 'block' && indent <= this.#frames.at(-1)!.level) this.#close();
      if (indent === 0 && (text.startsWith('%', first) || ((text.startsWith('---', first) || text.startsWith('...', first)) && !/^(---|\.\.\.)[ \t\r]*(#.*)?$/.test(text.slice(first, lineEnd))))) {
        throw BAIL;
      }
      if (indent === 0 && (text.startsWith('---', first) || text.startsWith('...', first))) {
        position = lineEnd + 1;
        continue;
      }
      position = this.#line(first, position);
    }
  }

  /** One line of block context from its first token; returns where the next line starts. */
  #line(start: number, lineStart: number): number {
    const text = this.text;
    const column = (offset: number) => offset - lineStart;
    // The column of the collection owning a value that starts here, and of the entry a key would start.
    let owner = this.#opener ?? -1;
    let entry: number | undefined;
    let valueStarted = false;
    this.#opener = undefined;
    let index = start;
    let lineEnd = text.indexOf('\n', index);
    if (lineEnd < 0) lineEnd = text.length;
    for (;;) {
      while (index < lineEnd && isBlank(text.charCodeAt(index))) index += 1;
      if (index >= lineEnd || text.charCodeAt(index) === 35) break;
      const code = text.charCodeAt(index);
      const next = index + 1 < text.length ? text.charCodeAt(index + 1) : NEWLINE;
      const afterKey = code === 58 && index > start && isJsonLikeEnd(text.charCodeAt(index - 1));
      if (((code === 45 || code === 63 || code === 58) && isSpace(next)) || afterKey) {
        // '- ', '? ', ': ': a sequence entry, an explicit key or a value; what follows belongs to it.
        owner = code === 58 && entry !== undefined && index !== start ? entry : column(index);
        if (code === 45) entry = undefined;
        valueStarted = false;
        index += 1;
        continue;
      }
      entry ??= column(index);
      if (code === 38) {
        // '&name'
        const end = this.#name(index + 1);
        this.#anchor(text.slice(index + 1, end));
        index = end;
        continue;
      }
      if (code === 33) throw BAIL; // '!': a tag may change what the node becomes
      valueStarted = true;
      if (code === 42) {
        const end = this.#name(index + 1);
        this.#alias(text.slice(index + 1, end), index);
        index = end;
      } else if (code === 34 || code === 39) {
        index = this.#quoted(index);
      } else if (code === 91 || code === 123) {
        index = this.#flow(index);
      } else if (code === 124 || code === 62) {
        // '|' or '>': the content is the following lines indented more than the owning collection.
        if (owner < 0) throw BAIL;
        return this.#blockScalar(index, lineEnd, owner);
      } else {
        const end = this.#plainInBlock(index, lineEnd);
        this.#scalar(plainBound(code, solid(text, index, end)), index);
        index = end;
        if (end < lineEnd && text.charCodeAt(end) === 58) {
          // The scalar was a key: its value belongs to the entry that starts at the key.
          owner = entry;
          valueStarted = false;
          index += 1;
          continue;
        }
        if (end >= lineEnd) {
          // A plain value that runs to the end of its line may go on, folded, on lines indented more than its owner.
          if (owner < 0) throw BAIL;
          this.#skipAbove = owner;
        }
        break;
      }
      if (index > lineEnd) {
        // A quoted scalar or flow collection went on over more lines; continue on its last one.
        lineEnd = text.indexOf('\n', index);
        if (lineEnd < 0) lineEnd = text.length;
        lineStart = text.lastIndexOf('\n', index - 1) + 1;
      }
    }
    if (!valueStarted) {
      // The node of this entry (and of any anchor just seen) is on the following lines.
      if (this.#pending !== null) this.#open('block', owner);
      this.#opener = owner;
    }
    return lineEnd + 1;
  }

  /** A plain scalar in block context ends at ': ', ' #' or the end of the line; returns its end. */
  #plainInBlock(start: number, lineEnd: number): number {
    const text = this.text;
    let index = start;
    while (index < lineEnd) {
      const code = text.charCodeAt(index);
      if (code === 58 && (index + 1 >= lineEnd || isSpace(text.charCodeAt(index + 1)))) return index;
      if (code === 35 && isBlank(text.charCodeAt(index - 1))) return index;
      index += 1;
    }
    return lineEnd;
  }

  /** Block scalar content: counted by its non-blank characters; returns where the first line after it starts. */
  #blockScalar(start: number, lineEnd: number, owner: number): number {
    const text = this.text;
    let characters = 0;
    let position = lineEnd + 1;
    while (position < text.length) {
      let end = text.indexOf('\n', position);
      if (end < 0) end = text.length;
      let first = position;
      while (first < end && text.charCodeAt(first) === SPACE) first += 1;
      let content = first;
      while (content < end && isBlank(text.charCodeAt(content))) content += 1;
      if (content < end && first - position <= owner) break;
      for (let index = content; index < end; index += 1) if (!isBlank(text.charCodeAt(index))) characters += 1;
      position = end + 1;
    }
    this.#scalar(characters + 2, start);
    return position;
  }

  /** A single- or double-quoted scalar, over as many lines as it takes; returns the offset after its closing quote. */
  #quoted(start: number): number {
    const text = this.text;
    const quote = text.charCodeAt(start);
    let characters = 0;
    let reductions = 0;
    let index = start + 1;
    for (;;) {
      if (index >= text.length) throw BAIL;
      const code = text.charCodeAt(index);
      if (quote === 34 && code === 92) {
        // An escape sequence may stand for less than itself (`\U0001F600` is one character): ten per backslash.
        reductions += 10;
        characters += 2;
        index += 2;
        continue;
      }
      if (code === quote) {
        if (quote === 39 && text.charCodeAt(index + 1) === 39) {
          reductions += 1;
          characters += 2;
          index += 2;
          continue;
        }
        break;
      }
      if (!isSpace(code)) characters += 1;
      index += 1;
    }
    this.#scalar(2 + Math.max(0, characters - reductions), start);
    return index + 1;
  }

  /** A flow collection, over as many lines as it takes; returns the offset after its closing bracket. */
  #flow(start: number): number {
    const text = this.text;
    let depth = 0;
    let index = start;
    let afterSpace = true;
    while (index < text.length) {
      const code = text.charCodeAt(index);
      if (isSpace(code)) {
        afterSpace = true;
        index += 1;
        continue;
      }
      if (code === 35 && afterSpace) {
        const end = text.indexOf('\n', index);
        index = end < 0 ? text.length : end;
        continue;
      }
      afterSpace = false;
      if (code === 91 || code === 123) {
        depth += 1;
        if (this.#pending !== null) this.#open('flow', depth);
        index += 1;
      } else if (code === 93 || code === 125) {
        const top = this.#frames.at(-1)!;
        this.#anchorNothing();
        if (top.kind === 'flow' && top.level === depth) this.#close();
        depth -= 1;
        index += 1;
        if (depth === 0) return index;
      } else if (code === 44) {
        this.#anchorNothing();
        index += 1;
      } else if ((code === 58 || code === 63) && (index + 1 >= text.length || isSpace(text.charCodeAt(index + 1)) || isFlowIndicator(text.charCodeAt(index + 1)))) {
        index += 1;
      } else if (code === 58 && isJsonLikeEnd(text.charCodeAt(index - 1))) {
        // After a quoted key or a collection, a value indicator needs no space.
        index += 1;
      } else if (code === 38) {
        const end = this.#name(index + 1);
        this.#anchor(text.slice(index + 1, end));
        index = end;
      } else if (code === 33) {
        throw BAIL;
      } else if (code === 42) {
        const end = this.#name(index + 1);
        this.#alias(text.slice(index + 1, end), index);
        index = end;
      } else if (code === 34 || code === 39) {
        index = this.#quoted(index);
      } else {
        index = this.#plainInFlow(index);
      }
    }
    throw BAIL;
  }

  /** A plain scalar in a flow collection: it may fold over lines, and ends at `,[]{}`, ': ' or ' #'. */
  #plainInFlow(start: number): number {
    const text = this.text;
    let index = start;
    let characters = 0;
    while (index < text.length) {
      const code = text.charCodeAt(index);
      if (isFlowIndicator(code)) break;
      if (code === 58 && (index + 1 >= text.length || isSpace(text.charCodeAt(index + 1)) || isFlowIndicator(text.charCodeAt(index + 1)))) break;
      if (code === 35 && isSpace(text.charCodeAt(index - 1))) break;
      if (!isSpace(code)) characters += 1;
      index += 1;
    }
    this.#scalar(plainBound(text.charCodeAt(start), characters), start);
    return index;
  }
}
