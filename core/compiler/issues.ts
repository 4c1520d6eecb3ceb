// Turns zod issues into positioned diagnostics: an unknown field names the closest known one, a missing field says so.
import type { z } from 'zod';
import { diagnostic, type Diagnostic } from '@agentctl/sdk';
import { formatPath, type PathSegment, type SourceDocument } from './source.js';
import { closest } from './suggest.js';

/**
 * `schema` is the schema the issues came from, at `prefix` in the document: it names the fields an unknown one may
 * have been meant as. `extraKeys` are fields checked elsewhere (an action's `kind`).
 */
export function issuesToDiagnostics(issues: readonly z.core.$ZodIssue[], source: SourceDocument, prefix: readonly PathSegment[] = [], schema?: z.ZodType, extraKeys: readonly string[] = []): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const issue of issues) {
    const relative = issue.path as PathSegment[];
    const path = [...prefix, ...relative];
    if (issue.code === 'unrecognized_keys') {
      const known = [...(schema ? fieldsAt(schema, relative) : []), ...(relative.length === 0 ? extraKeys : [])].filter((key) => !issue.keys.includes(key));
      for (const key of issue.keys) out.push(unknownField(source, path, key, known));
      continue;
    }
    const code = path.length === 1 && (path[0] === 'apiVersion' || path[0] === 'kind') ? 'AGENTCTL_E_API_VERSION' : 'AGENTCTL_E_SCHEMA';
    const missing = isMissing(source.value, path);
    out.push(
      diagnostic(code, {
        message: missing ? `${formatPath(path.slice(0, -1)) || 'the document'}: missing required field "${String(path[path.length - 1])}"` : `${formatPath(path) || 'document'}: ${issue.message}`,
        file: source.file,
        ...source.locate(path),
        path: formatPath(path),
        help: missing ? `add the field ${String(path[path.length - 1])}; \`agentctl schema\` shows what it takes` : 'fix the value; `agentctl schema` prints the workflow format',
      }),
    );
  }
  return out;
}

/** The diagnostic of a field the schema does not define, with "did you mean" when a known field is close. */
export function unknownField(source: SourceDocument, path: readonly PathSegment[], key: string, known: readonly string[]): Diagnostic {
  const keyPath = [...path, key];
  const near = key === '__proto__' ? undefined : closest(key, known);
  return diagnostic('AGENTCTL_E_UNKNOWN_FIELD', {
    message: `unknown field "${key}" in ${formatPath(path) || 'the document'}`,
    file: source.file,
    ...source.locate(keyPath, { key: true }),
    path: formatPath(keyPath),
    help: near ? `did you mean "${near}"? allowed fields: ${known.join(', ')}` : 'remove the field or check its spelling; see `agentctl schema` for the allowed fields',
  });
}

/** True when the value at `path` is absent because its parent object does not have the key. */
export function isMissing(document: unknown, path: readonly PathSegment[]): boolean {
  if (path.length === 0) return false;
  let parent: unknown = document;
  for (const segment of path.slice(0, -1)) {
    if (parent === null || typeof parent !== 'object' || !Object.hasOwn(parent, segment)) return false;
    parent = (parent as Record<PathSegment, unknown>)[segment];
  }
  return parent !== null && typeof parent === 'object' && !Array.isArray(parent) && !Object.hasOwn(parent, path[path.length - 1]!);
}

interface SchemaDefinition {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  valueType?: z.ZodType;
  options?: z.ZodType[];
  getter?: () => z.ZodType;
}

/** The field names of the object schema found at `path` inside `schema` (wrappers, arrays and records followed). */
export function fieldsAt(schema: z.ZodType, path: readonly PathSegment[]): string[] {
  let current: z.ZodType | undefined = schema;
  const unwrap = (value: z.ZodType | undefined): z.ZodType | undefined => {
    for (let guard = 0; value && guard < 32; guard += 1) {
      const definition = (value as unknown as { _zod: { def: SchemaDefinition } })._zod.def;
      const inner = definition.innerType ?? definition.in ?? (definition.type === 'lazy' ? definition.getter?.() : undefined);
      if (!inner) return value;
      value = inner;
    }
    return value;
  };
  for (const segment of path) {
    const definition = definitionOf(unwrap(current));
    if (!definition) return [];
    if (definition.type === 'object') current = definition.shape?.[String(segment)];
    else if (definition.type === 'array') current = definition.element;
    else if (definition.type === 'record') current = definition.valueType;
    else return [];
  }
  const definition = definitionOf(unwrap(current));
  if (definition?.type === 'object') return Object.keys(definition.shape ?? {});
  if (definition?.type === 'union') return [...new Set((definition.options ?? []).flatMap((option) => fieldsAt(option, [])))];
  return [];
}

function definitionOf(schema: z.ZodType | undefined): SchemaDefinition | undefined {
  return schema ? (schema as unknown as { _zod: { def: SchemaDefinition } })._zod.def : undefined;
}
