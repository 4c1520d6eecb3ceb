// Parses a YAML document with positions, so every diagnostic can name a line and column.
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import { AgentctlError, diagnostic, nestsDeeperThan, type Diagnostic } from '@agentctl/sdk';
import { expansionPassesAt } from './alias-bound.js';
import { checkExpansion, ExpansionError, MAX_DEPTH, MAX_EXPANDED_BYTES, tooLargeMessage } from './expansion.js';
import { plainJsonDocument } from './json-source.js';
import { lazyPlainText, type PlainText } from './plain-scalars.js';
import type { PathSegment } from './document-path.js';

export { MAX_DOCUMENT_BYTES, readBoundedFile, readBoundedStdin, STDIN_ARGUMENT, STDIN_NAME } from './read.js';
export { MAX_DEPTH, MAX_EXPANDED_BYTES } from './expansion.js';

export type { PathSegment } from './document-path.js';

export interface SourceDocument {
  readonly file: string;
  readonly text: string;
  readonly value: unknown;
  /** Line and column (1-based) of the value at a path, or of its nearest existing parent. */
  locate(path: readonly PathSegment[], options?: { key?: boolean }): { line: number; column: number };
  /** The source text of a plain scalar YAML read as a boolean, number or null (see plain-scalars.ts). */
  readonly plainText: PlainText;
}

export function parseSource(file: string, text: string): SourceDocument {
  const lineCounter = new LineCounter();
  const at = (offset: number) => {
    const position = lineCounter.linePos(offset);
    return { line: position.line, column: position.col };
  };
  // An alias bomb is refused from the text, before parsing it costs seconds; the exact check below decides the rest.
  const bomb = expansionPassesAt(text, MAX_EXPANDED_BYTES);
  if (bomb !== undefined) throw tooLarge(file, tooLargeMessage(MAX_EXPANDED_BYTES), textPosition(text, bomb));
  // logLevel error: problems become diagnostics below, never warnings printed to stderr.
  const readYaml = () => parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true, strict: true, logLevel: 'error' });
  const json = plainJsonDocument(text);
  if (json !== undefined) {
    // The same value the YAML reading gives; that reading is made only if a diagnostic needs a position, or a string
    // field holds a plain scalar (`true`, `1.10`) whose text is wanted.
    let document: Document | undefined;
    let plainText: PlainText | undefined;
    const yaml = () => (document ??= readYaml());
    return {
      file,
      text,
      value: json,
      locate(path, options = {}) {
        return at(offsetOf(yaml(), path, options.key ?? false));
      },
      plainText: (path) => (plainText ??= lazyPlainText(yaml()))(path),
    };
  }
  let document: Document;
  try {
    document = readYaml();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new AgentctlError('AGENTCTL_E_YAML_SYNTAX', `${file}: ${message}`, { diagnostics: [diagnostic('AGENTCTL_E_YAML_SYNTAX', { message, file, line: 1, column: 1 })] });
  }
  if (document.errors.length > 0) {
    const diagnostics: Diagnostic[] = document.errors.map((error) => diagnostic('AGENTCTL_E_YAML_SYNTAX', { ...yamlProblem(error), file, ...at(error.pos[0]) }));
    throw new AgentctlError('AGENTCTL_E_YAML_SYNTAX', `${file} is not valid YAML: ${diagnostics[0]!.message}`, { diagnostics });
  }
  try {
    checkExpansion(document);
  } catch (error) {
    if (!(error instanceof ExpansionError)) throw error;
    const deep = error.message.includes('nested');
    const code = deep || error.message.includes('alias *') ? 'AGENTCTL_E_YAML_SYNTAX' : 'AGENTCTL_E_DOCUMENT_TOO_LARGE';
    if (code === 'AGENTCTL_E_DOCUMENT_TOO_LARGE') throw tooLarge(file, error.message, at(error.offset));
    const help = deep ? `keep objects and arrays at most ${MAX_DEPTH} levels deep` : 'define each anchor (&name) before its aliases (*name), outside the node it names';
    throw new AgentctlError(code, `${file}: ${error.message}`, { diagnostics: [diagnostic(code, { message: error.message, file, ...at(error.offset), help })] });
  }
  // The expansion is bounded above, so yaml's own alias counter (a cruder rule) is switched off.
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: -1 });
  } catch (error) {
    // The library refuses some documents only here (a merge key whose source is not a map).
    const message = error instanceof Error ? error.message : String(error);
    throw yamlValueError(file, `the YAML cannot be read as data: ${message}`, { line: 1, column: 1 });
  }
  const foreign = nonJsonValue(value);
  if (foreign) {
    const where = foreign.path.length > 0 ? formatPath(foreign.path) : 'the document';
    throw yamlValueError(file, `${where} is ${foreign.what}, which has no JSON form`, { ...at(offsetOf(document, foreign.path, false)), ...(foreign.path.length > 0 ? { path: where } : {}) });
  }
  return {
    file,
    text,
    value,
    locate(path, options = {}) {
      return at(offsetOf(document, path, options.key ?? false));
    },
    plainText: lazyPlainText(document),
  };
}

function yamlValueError(file: string, message: string, position: { line: number; column: number; path?: string }): AgentctlError {
  const help = 'write plain data: strings, numbers, booleans, null, lists and maps; drop the tag (!!binary, !!set, !!omap, !!timestamp) or the merge key << used as a value';
  return new AgentctlError('AGENTCTL_E_YAML_VALUE', `${file}: ${message}`, { diagnostics: [diagnostic('AGENTCTL_E_YAML_VALUE', { message, file, ...position, help })] });
}

/**
 * The first value YAML's tags made that JSON cannot hold: a merge key (`<<`) read as a value, binary data, a set, an
 * ordered map, a date. Everything after parsing takes a document to be JSON data (it is cloned, hashed, stored).
 */
export function nonJsonValue(value: unknown): { path: PathSegment[]; what: string } | undefined {
  const stack: [unknown, PathSegment[]][] = [[value, []]];
  while (stack.length > 0) {
    const [item, path] = stack.pop()!;
    if (item === null || typeof item === 'string' || typeof item === 'boolean' || typeof item === 'number') continue;
    if (Array.isArray(item)) {
      for (let index = item.length - 1; index >= 0; index -= 1) stack.push([item[index], [...path, index]]);
      continue;
    }
    if (typeof item === 'object' && Object.getPrototypeOf(item) === Object.prototype) {
      for (const key of Object.keys(item).reverse()) stack.push([(item as Record<string, unknown>)[key], [...path, key]]);
      continue;
    }
    return { path, what: describeForeign(item) };
  }
  return undefined;
}

function describeForeign(item: unknown): string {
  if (typeof item === 'symbol') return `a YAML merge key (<<) where a value is expected`;
  if (item instanceof Uint8Array) return 'binary data (!!binary)';
  if (item instanceof Set) return 'a set (!!set)';
  if (item instanceof Map) return 'an ordered map (!!omap)';
  if (item instanceof Date) return 'a date (!!timestamp)';
  return `a ${typeof item === 'object' ? 'non-plain object' : typeof item}`;
}

function tooLarge(file: string, message: string, position: { line: number; column: number }): AgentctlError {
  const help = `aliases are allowed, but the expanded document must stay within ${MAX_EXPANDED_BYTES} bytes of JSON; reference large values once, or move them into files that tasks read`;
  return new AgentctlError('AGENTCTL_E_DOCUMENT_TOO_LARGE', `${file}: ${message}`, { diagnostics: [diagnostic('AGENTCTL_E_DOCUMENT_TOO_LARGE', { message, file, ...position, help })] });
}

/** Line and column (1-based) of an offset, counted in the text itself (no parser has seen it yet). */
function textPosition(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let index = text.indexOf('\n'); index >= 0 && index < offset; index = text.indexOf('\n', index + 1)) {
    line += 1;
    lineStart = index + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/** A YAML parser error in our words where theirs would confuse. */
function yamlProblem(error: { code: string; message: string }): { message: string; help: string } {
  if (error.code === 'MULTIPLE_DOCS') {
    return { message: 'the file holds more than one YAML document (a --- separator after content); a workflow is exactly one document', help: 'keep one workflow per file: remove the --- line and what follows, or move it into its own file' };
  }
  const first = error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
  if (first.includes('Maximum call stack size exceeded')) {
    return { message: `the document nests too deeply to be parsed; at most ${MAX_DEPTH} levels are allowed`, help: `keep objects and arrays at most ${MAX_DEPTH} levels deep` };
  }
  return { message: first, help: 'fix the YAML syntax at this position' };
}

function offsetOf(document: Document, path: readonly PathSegment[], wantKey: boolean): number {
  let node: unknown = document.contents;
  let offset = rangeStart(node) ?? 0;
  for (let index = 0; index < path.length; index += 1) {
    const segment = path[index];
    const last = index === path.length - 1;
    if (isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(segment));
      if (!pair) return offset;
      if (last && wantKey) return rangeStart(pair.key) ?? offset;
      node = pair.value ?? pair.key;
    } else if (isSeq(node) && typeof segment === 'number') {
      node = node.items[segment];
      if (node === undefined) return offset;
    } else {
      return offset;
    }
    offset = rangeStart(node) ?? offset;
  }
  return offset;
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
  return range ? range[0] : undefined;
}

/** Throws when a JSON-like value nests deeper than `limit`. Iterative, so it cannot overflow the stack itself. */
export function checkDepth(value: unknown, limit: number): void {
  if (nestsDeeperThan(value, limit)) throw new Error(`values are nested more than ${limit} levels deep`);
}

/** `spec.tasks[2].with` from `['spec', 'tasks', 2, 'with']`. */
export function formatPath(path: readonly PathSegment[]): string {
  return path.reduce<string>((text, segment) => (typeof segment === 'number' ? `${text}[${segment}]` : text ? `${text}.${segment}` : segment), '');
}
