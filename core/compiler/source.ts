// Reads a YAML document with positions, so every diagnostic can name a line and column.
import { readFileSync, statSync } from 'node:fs';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import { AgentctlError, diagnostic, type Diagnostic } from '../../sdk/index.js';

export const MAX_DOCUMENT_BYTES = 1024 * 1024;

export type PathSegment = string | number;

export interface SourceDocument {
  readonly file: string;
  readonly text: string;
  readonly value: unknown;
  /** Line and column (1-based) of the value at a path, or of its nearest existing parent. */
  locate(path: readonly PathSegment[], options?: { key?: boolean }): { line: number; column: number };
}

/** Reads a file capped at 1 MiB; a missing, unreadable or oversized file is a usage error. */
export function readBoundedFile(file: string, what: string): string {
  let size: number;
  try {
    const stats = statSync(file);
    if (!stats.isFile()) throw new Error('not a regular file');
    size = stats.size;
  } catch (error) {
    throw new AgentctlError('AGENTCTL_E_FILE_NOT_FOUND', `${what} ${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, {
      diagnostics: [diagnostic('AGENTCTL_E_FILE_NOT_FOUND', { message: `${what} cannot be read`, file, line: 1, column: 1, help: 'check the path' })],
    });
  }
  if (size > MAX_DOCUMENT_BYTES) {
    const message = `${what} is ${size} bytes; the limit is ${MAX_DOCUMENT_BYTES} bytes (1 MiB)`;
    throw new AgentctlError('AGENTCTL_E_DOCUMENT_TOO_LARGE', message, {
      diagnostics: [diagnostic('AGENTCTL_E_DOCUMENT_TOO_LARGE', { message, file, line: 1, column: 1, help: 'split the document or move data into files read by tasks' })],
    });
  }
  return readFileSync(file, 'utf8');
}

export function parseSource(file: string, text: string): SourceDocument {
  const lineCounter = new LineCounter();
  // logLevel error: problems become diagnostics below, never warnings printed to stderr.
  let document: Document;
  try {
    document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true, strict: true, logLevel: 'error' });
  } catch (error) {
    // e.g. nesting so deep that the parser runs out of stack
    const message = error instanceof Error ? error.message : String(error);
    throw new AgentctlError('AGENTCTL_E_YAML_SYNTAX', `${file}: ${message}`, { diagnostics: [diagnostic('AGENTCTL_E_YAML_SYNTAX', { message, file, line: 1, column: 1 })] });
  }
  if (document.errors.length > 0) {
    const diagnostics: Diagnostic[] = document.errors.map((error) => {
      const position = lineCounter.linePos(error.pos[0]);
      return diagnostic('AGENTCTL_E_YAML_SYNTAX', {
        message: error.message.split('\n')[0]!,
        file,
        line: position.line,
        column: position.col,
        help: 'fix the YAML syntax at this position',
      });
    });
    throw new AgentctlError('AGENTCTL_E_YAML_SYNTAX', `${file} is not valid YAML: ${diagnostics[0]!.message}`, { diagnostics });
  }
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: 100 });
    checkDepth(value, MAX_DEPTH);
  } catch (error) {
    // e.g. alias expansion beyond the limit (a "billion laughs" document)
    const message = error instanceof Error ? error.message : String(error);
    throw new AgentctlError('AGENTCTL_E_YAML_SYNTAX', `${file}: ${message}`, {
      diagnostics: [diagnostic('AGENTCTL_E_YAML_SYNTAX', { message, file, line: 1, column: 1, help: `at most 99 alias references to one anchor and ${MAX_DEPTH} levels of nesting` })],
    });
  }
  return {
    file,
    text,
    value,
    locate(path, options = {}) {
      const offset = offsetOf(document, path, options.key ?? false);
      const position = lineCounter.linePos(offset);
      return { line: position.line, column: position.col };
    },
  };
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

/** Deeper documents are refused: every later step walks values recursively. */
export const MAX_DEPTH = 64;

/** Throws when a JSON-like value nests deeper than `limit`. Iterative, so it cannot overflow the stack itself. */
export function checkDepth(value: unknown, limit: number): void {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth >= limit) throw new Error(`values are nested more than ${limit} levels deep`);
    for (const inner of Object.values(item)) stack.push([inner, depth + 1]);
  }
}

/** `spec.tasks[2].with` from `['spec', 'tasks', 2, 'with']`. */
export function formatPath(path: readonly PathSegment[]): string {
  return path.reduce<string>((text, segment) => (typeof segment === 'number' ? `${text}[${segment}]` : text ? `${text}.${segment}` : segment), '');
}
