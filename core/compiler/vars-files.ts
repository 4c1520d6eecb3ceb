// Variable files: YAML or JSON objects of vars, read at compile time and layered with the inline vars. The layers, low
// to high: spec.varsFiles, spec.vars, the agent's varsFiles and vars (agent tasks), the task's varsFiles and vars,
// then the invocation's --vars-file files and --var values. A higher layer replaces a whole top-level key. The files'
// content is captured in the plan (CompiledPlan.capturedVars): resuming a run reads the capture, never the files.
// Each distinct file is captured once, by the digest of its bytes; the plan's tasks name the digests of their files
// and repeat only the keys they set themselves, so a file listed by 200 tasks is stored once, not 201 times.
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { AgentctlError, canonicalJson, diagnostic, isAgentctlError, type CapturedVars, type CompiledTask, type JsonObject, type JsonValue } from '@agentctl/sdk';
import { isWithin } from '../policy/engine.js';
import { NAME_PATTERN, type TaskDocument } from './envelope.js';
import type { IndexedTask, WorkflowParts } from './partial.js';
import { readBoundedBytes } from './read.js';
import { checkDepth, MAX_DEPTH, parseSource, STDIN_NAME, type PathSegment } from './source.js';
import type { Report } from './checks.js';
import { hasTemplate } from './templates.js';

export const VARS_LIMITS = { fileBytes: 1024 * 1024, files: 256, totalBytes: 16 * 1024 * 1024 } as const;

/** Names the engine binds in expanded tasks; no variable layer may use them. */
export const RESERVED_VARS: readonly string[] = ['loopIndex', 'loopPrevious', 'foreachIndex', 'matrix', 'matrixIndex'];

/** Top-level keys that would make a variable file include others: refused, files never nest. */
const INCLUDE_KEYS = ['varsFiles', 'include', 'includes'];

type Code = 'AGENTCTL_E_VARS_FILE_PATH' | 'AGENTCTL_E_VARS_FILE_UNREADABLE' | 'AGENTCTL_E_VARS_FILE_TOO_LARGE' | 'AGENTCTL_E_VARS_FILE_INVALID' | 'AGENTCTL_E_VARS_RESERVED';

/** Why one variable file was refused. */
class VarsFileProblem extends Error {
  constructor(
    readonly code: Code,
    message: string,
    readonly help?: string,
  ) {
    super(message);
  }
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const sortedEntries = <T>(map: ReadonlyMap<string, T>): Record<string, T> => Object.fromEntries([...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** One variable file as read: its content and the digest it is stored under. */
export interface VarsFile {
  readonly digest: string;
  readonly value: JsonObject;
}

/**
 * Reads variable files below one folder, each at most once, and keeps the count and size limits over all of them.
 * The size limit counts what is stored: each distinct content once, however many paths or tasks name it.
 * With a capture (a resumed run), the captured content is used and nothing is read.
 */
export class VarsFileReader {
  #references = 0;
  #bytes = 0;
  /** Path as written → digest of its content. */
  readonly #paths = new Map<string, string>();
  /** Digest → content, each distinct content once. */
  readonly #contents = new Map<string, JsonObject>();

  constructor(
    private readonly base: string,
    private readonly root: string,
    private readonly captured?: CapturedVars,
  ) {}

  /** What the plan stores: each path's digest, and each distinct content once. */
  capture(): { files: Record<string, string>; contents: Record<string, JsonObject> } {
    return { files: sortedEntries(this.#paths), contents: sortedEntries(this.#contents) };
  }

  /** Each path's content: what the plan digest has always covered. */
  contentByPath(): Record<string, JsonObject> {
    return sortedEntries(new Map([...this.#paths].map(([path, digest]) => [path, this.#contents.get(digest)!])));
  }

  /** One file's content and digest; throws VarsFileProblem. */
  read(declared: string): VarsFile {
    if (declared.trim() === '') throw new VarsFileProblem('AGENTCTL_E_VARS_FILE_PATH', 'a variable file path is empty');
    if (hasTemplate(declared)) throw new VarsFileProblem('AGENTCTL_E_VARS_FILE_PATH', `variable file "${declared}" is a template; paths are literal`, 'write the path itself: templates are never evaluated here');
    if (declared.includes('\u0000')) throw new VarsFileProblem('AGENTCTL_E_VARS_FILE_PATH', 'a variable file path holds a NUL byte');
    if (declared.split(/[\\/]/).includes('..')) throw new VarsFileProblem('AGENTCTL_E_VARS_FILE_PATH', `variable file "${declared}" contains a ".." segment: source paths must not contain parent traversal (\`..\`)`, 'name the file by a path inside the folder, without ".."');
    this.#references += 1;
    if (this.#references > VARS_LIMITS.files) throw new VarsFileProblem('AGENTCTL_E_VARS_FILE_TOO_LARGE', `more than ${VARS_LIMITS.files} variable file references`);
    const known = this.#paths.get(declared);
    if (known !== undefined) return { digest: known, value: this.#contents.get(known)! };
    const file = this.captured ? this.#fromCapture(declared, this.captured) : this.#fromDisk(declared);
    this.#paths.set(declared, file.digest);
    this.#contents.set(file.digest, file.value);
    return file;
  }

  #fromCapture(declared: string, captured: CapturedVars): VarsFile {
    const entry = Object.hasOwn(captured.files, declared) ? captured.files[declared] : undefined;
    // Plans stored before files were kept by digest hold the content itself under the path.
    if (entry !== undefined && typeof entry !== 'string') return { digest: sha256(canonicalJson(entry)), value: entry };
    const value = entry === undefined || !captured.contents || !Object.hasOwn(captured.contents, entry) ? undefined : captured.contents[entry];
    if (value === undefined) throw new VarsFileProblem('AGENTCTL_E_VARS_FILE_UNREADABLE', `variable file "${declared}" was not captured when the run started`);
    return { digest: entry as string, value };
  }

  #fromDisk(declared: string): VarsFile {
    const { bytes, display } = this.#load(declared);
    const digest = sha256(bytes);
    const stored = this.#contents.get(digest);
    if (stored) return { digest, value: stored };
    this.#bytes += bytes.length;
    if (this.#bytes > VARS_LIMITS.totalBytes) throw new VarsFileProblem('AGENTCTL_E_VARS_FILE_TOO_LARGE', `the variable files are more than ${VARS_LIMITS.totalBytes} bytes (16 MiB) in total`, 'the limit counts each distinct file once; list fewer or smaller files');
    return { digest, value: parseVarsText(display, bytes) };
  }

  #load(declared: string): { bytes: Buffer; display: string } {
    const path = resolve(this.base, declared);
    if (!isWithin(path, this.root)) throw new VarsFileProblem('AGENTCTL_E_VARS_FILE_PATH', `variable file "${declared}" is outside ${this.root}`, 'keep variable files inside the folder');
    let real: string;
    try {
      real = realpathSync(path);
    } catch (error) {
      throw new VarsFileProblem('AGENTCTL_E_VARS_FILE_UNREADABLE', `variable file "${declared}" cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
    if (!isWithin(real, realOrSelf(this.root))) throw new VarsFileProblem('AGENTCTL_E_VARS_FILE_PATH', `variable file "${declared}" leads outside ${this.root} through a symbolic link`, 'keep variable files (and what their links point to) inside the folder');
    try {
      return { bytes: readBoundedBytes(real, `variable file "${declared}"`), display: declared };
    } catch (error) {
      if (!isAgentctlError(error)) throw error;
      const code = error.code === 'AGENTCTL_E_DOCUMENT_TOO_LARGE' ? 'AGENTCTL_E_VARS_FILE_TOO_LARGE' : 'AGENTCTL_E_VARS_FILE_UNREADABLE';
      throw new VarsFileProblem(code, error.message);
    }
  }
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** A variable file's bytes as an object of vars; throws VarsFileProblem. */
function parseVarsText(name: string, bytes: Buffer): JsonObject {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new VarsFileProblem('AGENTCTL_E_VARS_FILE_UNREADABLE', `variable file "${name}" is not valid UTF-8`);
  }
  let value: unknown;
  try {
    value = parseSource(name, text).value;
  } catch (error) {
    if (!isAgentctlError(error)) throw error;
    const first = error.diagnostics[0];
    const where = first?.line === undefined ? '' : `:${first.line}:${first.column ?? 1}`;
    throw new VarsFileProblem('AGENTCTL_E_VARS_FILE_INVALID', `variable file must be a valid mapping with unique keys: "${name}"${where}: ${first?.message ?? error.message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const found = value === null ? 'null (an empty file?)' : Array.isArray(value) ? 'a list' : `a ${typeof value}`;
    throw new VarsFileProblem('AGENTCTL_E_VARS_FILE_INVALID', `variable file root must be a mapping: "${name}" must hold an object of variables at the top level, not ${found}`);
  }
  for (const key of Object.keys(value)) {
    if (INCLUDE_KEYS.includes(key)) throw new VarsFileProblem('AGENTCTL_E_VARS_FILE_INVALID', `variable file "${name}" has the key "${key}"; variable files cannot include other files; list every file in varsFiles`, 'list every variable file in the workflow (varsFiles) or on the command line');
  }
  checkVarValues(value as Record<string, unknown>, `variable file "${name}"`, (message, code) => new VarsFileProblem(code ?? 'AGENTCTL_E_VARS_FILE_INVALID', message));
  return value as JsonObject;
}

/**
 * Names are var names (a letter first), never reserved; values are JSON: finite numbers, at most 64 levels deep,
 * and no "__proto__" key.
 */
export function checkVarValues(vars: Record<string, unknown>, what: string, fail: (message: string, code?: Code) => Error): void {
  for (const key of Object.keys(vars)) {
    if (RESERVED_VARS.includes(key)) throw fail(`${what}: bindings conflict with task vars: "${key}" is reserved for engine bindings`, 'AGENTCTL_E_VARS_RESERVED');
    if (!NAME_PATTERN.test(key)) throw fail(`${what}: ${JSON.stringify(key)} is not a valid variable name (a letter, then letters, digits, "_" or "-")`);
  }
  try {
    checkDepth(vars, MAX_DEPTH + 1);
  } catch (error) {
    throw fail(`${what}: ${(error as Error).message}`);
  }
  const stack: unknown[] = [vars];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'number' && !Number.isFinite(item)) throw fail(`${what}: a number is not finite (.inf or .nan)`);
    if (item !== null && typeof item === 'object') {
      if (Object.hasOwn(item, '__proto__')) throw fail(`${what}: the key "__proto__" is refused`);
      stack.push(...Object.values(item));
    }
  }
}

/** The folder a workflow's relative variable file paths start from. */
export const workflowFolder = (file: string) => (file === STDIN_NAME ? process.cwd() : dirname(resolve(file)));

/** How the compiler layers vars: the overrides of the invocation, or a capture that replaces every file read. */
export interface VarsOptions {
  readonly overrides?: Readonly<Record<string, JsonValue>>;
  readonly captured?: CapturedVars;
}

export interface LayeredVars {
  /** Each task's `vars` holds every layer; its `varsFiles` then holds the digests of its files, lowest first. */
  readonly parts: WorkflowParts;
  /** The digests of spec.varsFiles, lowest first. */
  readonly workflowFiles: readonly string[];
  /** Absent when no file is named and no override given: such plans look exactly as before. */
  readonly captured?: CapturedVars;
  /** Each path's content, for the plan digest. */
  readonly contentByPath: Record<string, JsonObject>;
}

/**
 * The workflow parts with every var layer applied: spec.vars becomes the workflow files, spec.vars and the overrides;
 * each task's vars become its agent's and its own layers with the overrides on top (absent when it has none).
 */
export function layerVars(file: string, parts: WorkflowParts, options: VarsOptions, report: Report): LayeredVars {
  const spec = parts.envelope.spec;
  const folder = workflowFolder(file);
  const reader = new VarsFileReader(folder, folder, options.captured);
  const overrides = options.captured?.overrides ?? options.overrides ?? {};
  let failed = false;
  const files = (list: readonly string[] | undefined, path: PathSegment[]): { merged: Record<string, JsonValue>; digests: string[] } => {
    const merged: Record<string, JsonValue> = {};
    const digests: string[] = [];
    (list ?? []).forEach((declared, index) => {
      if (failed) return;
      try {
        const file = reader.read(declared);
        Object.assign(merged, file.value);
        digests.push(file.digest);
      } catch (error) {
        if (!(error instanceof VarsFileProblem)) throw error;
        // One problem with files is enough: the next ones would repeat it (the limits) or depend on it.
        failed = true;
        report(error.code, [...path, index], error.message, error.help);
      }
    });
    return { merged, digests };
  };
  const inline = (vars: Record<string, unknown> | undefined, path: PathSegment[]) => {
    for (const key of Object.keys(vars ?? {})) if (RESERVED_VARS.includes(key)) report('AGENTCTL_E_VARS_RESERVED', [...path, key], `bindings conflict with task vars: var "${key}" is reserved for engine bindings`, 'rename the var');
    return (vars ?? {}) as Record<string, JsonValue>;
  };
  const workflowFiles = files(spec.varsFiles, ['spec', 'varsFiles']);
  const workflow = { ...workflowFiles.merged, ...inline(spec.vars, ['spec', 'vars']), ...overrides };
  const agentLayers = new Map<string, { vars: Record<string, JsonValue>; digests: string[] }>();
  for (const [name, agent] of Object.entries(spec.agents)) {
    const agentFiles = files(agent.varsFiles, ['spec', 'agents', name, 'varsFiles']);
    agentLayers.set(name, { vars: { ...agentFiles.merged, ...inline(agent.vars, ['spec', 'agents', name, 'vars']) }, digests: agentFiles.digests });
  }
  const layered = (task: TaskDocument, path: PathSegment[]): TaskDocument => {
    const agent = task.uses.startsWith('agent:') ? agentLayers.get(task.uses.slice('agent:'.length)) : undefined;
    const taskFiles = files(task.varsFiles, [...path, 'varsFiles']);
    const own = { ...agent?.vars, ...taskFiles.merged, ...inline(task.vars, [...path, 'vars']) };
    const digests = [...(agent?.digests ?? []), ...taskFiles.digests];
    const { varsFiles: _files, vars: _vars, ...rest } = task;
    // From here on a task's varsFiles are the digests of its files (the plan names files by digest).
    return Object.keys(own).length === 0 && task.vars === undefined ? rest : { ...rest, vars: { ...own, ...overrides }, ...(digests.length > 0 ? { varsFiles: digests } : {}) };
  };
  const tasks: IndexedTask[] = parts.tasks.map(({ task, index }) => ({ task: layered(task, ['spec', 'tasks', index]), index }));
  const subworkflows = Object.fromEntries(
    Object.entries(spec.subworkflows).map(([name, definition]) => [name, { ...definition, tasks: definition.tasks.map((task, index) => layered(task, ['spec', 'subworkflows', name, 'tasks', index])) }]),
  );
  const envelope = { ...parts.envelope, spec: { ...spec, vars: workflow, subworkflows, tasks: tasks.map((entry) => entry.task) } };
  const read = reader.capture();
  const any = Object.keys(read.files).length > 0 || Object.keys(overrides).length > 0;
  const captured = any ? { files: read.files, ...(Object.keys(read.contents).length > 0 ? { contents: read.contents } : {}), overrides } : undefined;
  return { parts: { ...parts, envelope, tasks }, workflowFiles: workflowFiles.digests, contentByPath: reader.contentByPath(), ...(captured ? { captured } : {}) };
}

/** The plan digest: the source text's, and with variable files, their content's too (by path, as always). */
export function varsDigestInput(text: string, contentByPath: Record<string, JsonObject>): string {
  return Object.keys(contentByPath).length > 0 ? `${text}\n${canonicalJson(contentByPath as JsonValue)}` : text;
}

/** The vars that files give, merged lowest first: what a task's (or the plan's) `varsFiles` stand for. */
export function filesVars(contents: Readonly<Record<string, JsonObject>> | undefined, digests: readonly string[]): Record<string, JsonValue> {
  const merged: Record<string, JsonValue> = {};
  for (const digest of digests) {
    const content = contents && Object.hasOwn(contents, digest) ? contents[digest] : undefined;
    if (content === undefined) throw new AgentctlError('AGENTCTL_E_VARS_FILE_UNREADABLE', `the plan names variable file content ${digest.slice(0, 12)} it does not hold`);
    Object.assign(merged, content);
  }
  return merged;
}

/**
 * `vars` without what its files give: only the keys whose value is not the very value the files give. Layers only add
 * or replace keys, so `{...filesVars, ...result}` is `vars` again.
 */
export function storedVars(vars: Readonly<Record<string, JsonValue>>, fromFiles: Readonly<Record<string, JsonValue>>): Record<string, JsonValue> {
  const own: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(vars)) if (!Object.hasOwn(fromFiles, key) || fromFiles[key] !== value) own[key] = value;
  return own;
}

/** A compiled task as the plan stores it: its files by digest, its vars without what they give. */
export function withStoredVars(contents: Readonly<Record<string, JsonObject>> | undefined, cache: Map<string, Record<string, JsonValue>>): (task: CompiledTask) => CompiledTask {
  return (task) => {
    if (!task.varsFiles || task.varsFiles.length === 0 || !task.vars) {
      const { varsFiles: _unused, ...rest } = task;
      return rest;
    }
    const key = task.varsFiles.join(',');
    let fromFiles = cache.get(key);
    if (!fromFiles) cache.set(key, (fromFiles = filesVars(contents, task.varsFiles)));
    const { vars: _vars, ...rest } = task;
    const own = storedVars(task.vars, fromFiles);
    return { ...rest, ...(Object.keys(own).length > 0 ? { vars: own } : {}) };
  };
}

/**
 * The invocation overrides: each --vars-file (relative to the current folder, inside `root`) in order, then each
 * --var KEY=JSON. A problem is an error naming the flag and the file.
 */
export function readVarOverrides(files: readonly string[], pairs: readonly string[], root: string): Record<string, JsonValue> {
  const merged: Record<string, JsonValue> = {};
  const reader = new VarsFileReader(process.cwd(), root);
  for (const file of files) {
    try {
      Object.assign(merged, reader.read(file).value);
    } catch (error) {
      if (!(error instanceof VarsFileProblem)) throw error;
      throw new AgentctlError(error.code, `--vars-file ${file}: ${error.message}`, { diagnostics: [diagnostic(error.code, { message: error.message, file, line: 1, column: 1, ...(error.help ? { help: error.help } : {}) })] });
    }
  }
  const vars: Record<string, unknown> = {};
  for (const pair of pairs) {
    const equals = pair.indexOf('=');
    const key = equals < 0 ? pair : pair.slice(0, equals);
    if (equals < 0 || !NAME_PATTERN.test(key)) throw new AgentctlError('AGENTCTL_E_VAR_INVALID', `--var ${JSON.stringify(pair)} is not KEY=JSON with KEY a valid variable name`);
    let value: unknown;
    try {
      value = JSON.parse(pair.slice(equals + 1));
    } catch (error) {
      throw new AgentctlError('AGENTCTL_E_VAR_INVALID', `--var ${key}: the value is not valid JSON (${(error as Error).message}); a string is written in quotes: --var '${key}="text"'`);
    }
    checkVarValues({ [key]: value }, `--var ${key}`, (message, code) => new AgentctlError(code === 'AGENTCTL_E_VARS_RESERVED' ? code : 'AGENTCTL_E_VAR_INVALID', message));
    vars[key] = value;
  }
  return { ...merged, ...(vars as Record<string, JsonValue>) };
}
