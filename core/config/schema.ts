// The project config's shape. Strict: a field the schema does not define is refused with its path, so a typo
// (`pack:` for `packs:`) is an error, never a silently ignored setting.
import { z } from 'zod';
import { AgentctlError, diagnostic, type Diagnostic } from '@agentctl/sdk';

const packObjectSchema = z
  .strictObject({
    name: z.string().min(1).optional(),
    path: z.string().min(1).optional(),
    options: z.unknown().optional(),
  })
  .refine((entry) => (entry.name === undefined) !== (entry.path === undefined), { message: 'give exactly one of "name" (an npm package) and "path" (a local folder or file)' });

const configSchema = z.strictObject({
  packs: z.array(z.unknown()).optional(),
  db: z
    .string()
    .min(1)
    .refine((value) => value.trim() === value && !value.includes('\0') && value !== ':memory:', { message: 'db must name a database file (no :memory:, no surrounding white space)' })
    .optional(),
  output: z.enum(['human', 'json', 'jsonl']).optional(),
  color: z.enum(['auto', 'always', 'never']).optional(),
  // Which environment variable holds each state key on this machine, by key id (docs/state-encryption.md).
  stateKeys: z
    .record(
      z.string().regex(/^[A-Za-z0-9._-]{1,128}$/, { message: 'a key id is 1-128 letters, digits, ".", "_" or "-"' }),
      z.string().regex(/^[A-Z_][A-Z0-9_]*$/, { message: 'the name of the environment variable that holds the key (never the key): [A-Z_][A-Z0-9_]*' }),
    )
    .optional(),
  // Read by the OpenTelemetry pack, whose options schema checks it (docs/telemetry.md).
  telemetry: z.unknown().optional(),
});

/** One `packs` entry, normalised: an npm package name or a local path, with the options written for it. */
export interface PackEntry {
  readonly name?: string;
  readonly path?: string;
  readonly options?: unknown;
  /** Where the entry is in the config, e.g. `packs[1]`. */
  readonly at: string;
}

/** The config as validated: every field optional. */
export interface ProjectConfig {
  readonly packs: readonly PackEntry[];
  readonly db?: string;
  readonly output?: 'human' | 'json' | 'jsonl';
  readonly color?: 'auto' | 'always' | 'never';
  /** Key id → the environment variable that holds that state key here, instead of the one the database records. */
  readonly stateKeys?: Readonly<Record<string, string>>;
  /** The OpenTelemetry settings (docs/telemetry.md), as written: the pack's options schema checks them. */
  readonly telemetry?: unknown;
}

/** A string entry is a path when it starts with ./, ../ or / (as in `import`); anything else is an npm name. */
const isPath = (value: string) => value.startsWith('./') || value.startsWith('../') || value.startsWith('/');

/** Validates what a config file held; every problem becomes a diagnostic naming the file and the path. */
export function parseProjectConfig(value: unknown, file: string): ProjectConfig {
  const problems: Diagnostic[] = [];
  const report = (path: string, message: string) => problems.push(diagnostic('AGENTCTL_E_CONFIG_INVALID', { message: `${file}: ${path ? `${path}: ` : ''}${message}`, file, ...(path ? { path } : {}) }));
  const top = configSchema.safeParse(value);
  if (!top.success) for (const issue of top.error.issues) issueTo(report, '', issue);
  const packs: PackEntry[] = [];
  // Entries are checked even when another field is wrong, so one run reports every problem of the file.
  const entries = (value as { packs?: unknown } | null)?.packs;
  (Array.isArray(entries) ? (entries as unknown[]) : []).forEach((entry, index) => {
    const at = `packs[${index}]`;
    if (typeof entry === 'string') {
      if (entry.trim() === '') report(at, 'a pack entry must not be empty');
      else packs.push(isPath(entry) ? { path: entry, at } : { name: entry, at });
      return;
    }
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      report(at, 'a pack entry is an npm package name, a path starting with ./, ../ or /, or {name | path, options}');
      return;
    }
    const parsed = packObjectSchema.safeParse(entry);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) issueTo(report, at, issue);
      return;
    }
    const { name, path, options } = parsed.data;
    packs.push({ ...(name !== undefined ? { name } : { path: path! }), ...(options !== undefined ? { options } : {}), at });
  });
  if (problems.length > 0) {
    const first = problems[0]!;
    throw new AgentctlError('AGENTCTL_E_CONFIG_INVALID', `${first.message}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}`, { diagnostics: problems });
  }
  const data = top.data!;
  return { packs, ...(data.db !== undefined ? { db: data.db } : {}), ...(data.output ? { output: data.output } : {}), ...(data.color ? { color: data.color } : {}), ...(data.stateKeys ? { stateKeys: data.stateKeys } : {}), ...(data.telemetry !== undefined ? { telemetry: data.telemetry } : {}) };
}

/** A zod issue as one or more findings; an unknown field is named with its full path. */
export function issueTo(report: (path: string, message: string) => void, prefix: string, issue: z.core.$ZodIssue): void {
  const path = joinPath(prefix, issue.path);
  if (issue.code === 'unrecognized_keys') {
    for (const key of issue.keys) report(joinPath(path, [key]), `unknown field "${key}"`);
    return;
  }
  if (issue.code === 'invalid_type' && issue.path.length === 0 && prefix === '') {
    report('', 'the config must be an object (in a JavaScript config: the default export)');
    return;
  }
  report(path, issue.message);
}

/** `packs[0]` + `['options', 'greeting']` → `packs[0].options.greeting`. */
export function joinPath(prefix: string, segments: readonly PropertyKey[]): string {
  return segments.reduce<string>((path, segment) => (typeof segment === 'number' ? `${path}[${segment}]` : path ? `${path}.${String(segment)}` : String(segment)), prefix);
}
