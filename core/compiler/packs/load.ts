// Declarative packs of a workflow: its `spec.packs` roots resolved depth-first through their dependencies, each
// manifest read from a path below the workflow's folder and pinned by the SHA-256 of its bytes. With a lock beside the
// workflow, the resolution must equal it entry for entry (any drift is refused, nothing is rewritten); without one,
// only the older `path` + `integrity` references load, with a warning, as the reference does.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { parse, stringify } from 'yaml';
import semverSatisfies from 'semver/functions/satisfies.js';
import validVersion from 'semver/functions/valid.js';
import { AgentctlError, diagnostic, type Diagnostic, type ErrorCode } from '@agentctl/sdk';
import { issuesToDiagnostics } from '../issues.js';
import { parseSource } from '../source.js';
import { LOCK_API_VERSION, LOCK_FILE, lockSchema, MAX_MANIFEST_BYTES, nodeRange, packManifestSchema, packReferenceSchema, packTrustSchema, REFERENCE_FORMAT_VERSION, satisfies, type CodePackEntry, type LockEntry, type PackLock, type PackManifest, type PackReference, type PackSource, type PackTrust } from './format.js';

export interface PackLoadOptions {
  /** Refuse to run without a lock, or with any difference from it (`--locked`). */
  readonly locked?: boolean;
  /** Only local and vendored sources (`--offline`); the only sources this version has. */
  readonly offline?: boolean;
}

/** Whether an action kind starts processes (its effect class is process_execution): the host answers. */
export type ProcessKinds = (kind: string) => boolean;

export interface LoadedPack {
  readonly entry: LockEntry;
  readonly manifest: PackManifest;
  /** Absolute path of the manifest. */
  readonly file: string;
}

export interface PackLoad {
  readonly packs: readonly LoadedPack[];
  readonly warnings: readonly Diagnostic[];
  /** The lock that was verified, when there is one. */
  readonly lock?: string;
}

/** A requirement to resolve: a root of the workflow or a dependency of a pack. */
interface Requirement {
  readonly name: string;
  readonly range: string;
  readonly source: PackSource;
  readonly from: string;
}

const fail = (code: ErrorCode, message: string, file: string, help?: string): never => {
  throw new AgentctlError(code, message, { diagnostics: [diagnostic(code, { message, file, ...(help ? { help } : {}) })] });
};

export const digestOf = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** The workflow's pack references and trust settings, as far as they are well-formed (the envelope reports the rest). */
export function packSpec(document: unknown): { references: PackReference[]; trust: PackTrust } | undefined {
  const spec = (document as { spec?: { packs?: unknown; packTrust?: unknown } } | null)?.spec;
  if (!spec || !Array.isArray(spec.packs) || spec.packs.length === 0) return undefined;
  const references = spec.packs.map((entry) => packReferenceSchema.safeParse(entry));
  const trust = packTrustSchema.safeParse(spec.packTrust ?? {});
  if (references.some((entry) => !entry.success) || !trust.success) return undefined;
  return { references: references.map((entry) => entry.data!), trust: trust.data };
}

/** The folder pack paths are resolved against: the workflow's own (the current one for standard input). */
export const packRoot = (workflowFile: string) => (workflowFile === '<stdin>' ? process.cwd() : dirname(resolve(workflowFile)));

export function loadDeclarativePacks(workflowFile: string, document: unknown, options: PackLoadOptions, runsProcesses: ProcessKinds): PackLoad {
  const spec = packSpec(document);
  if (!spec) return { packs: [], warnings: [] };
  const root = packRoot(workflowFile);
  const roots = spec.references.map((reference) => rootRequirement(reference, workflowFile));
  const lockFile = resolve(root, LOCK_FILE);
  const warnings: Diagnostic[] = [];
  let packs: LoadedPack[];
  if (existsSync(lockFile)) {
    packs = loadLocked(root, lockFile, spec.references, roots);
  } else {
    if (options.locked) fail('AGENTCTL_E_PACK_LOCK_MISSING', `${LOCK_FILE} is required by --locked and ${lockFile} does not exist`, workflowFile, `run \`agentctl packs lock ${workflowFile}\` and commit the lock`);
    const unpinned = spec.references.find((reference) => reference.source !== undefined);
    if (unpinned) fail('AGENTCTL_E_PACK_LOCK_MISSING', `pack ${unpinned.name} names a source, which needs ${LOCK_FILE} beside the workflow to pin its digest`, workflowFile, `run \`agentctl packs lock ${workflowFile}\` and commit the lock`);
    packs = resolveGraph(root, roots);
    warnings.push(diagnostic('AGENTCTL_E_PACK_LOCK_MISSING', { severity: 'warning', message: `packs referenced by path and integrity without a lock are deprecated; run \`agentctl packs lock\` and commit ${LOCK_FILE}`, file: workflowFile, path: 'spec.packs' }));
  }
  for (const reference of spec.references) checkLegacyIntegrity(reference, packs, workflowFile);
  warnings.push(...applyTrust(packs, spec.trust, workflowFile, runsProcesses));
  return { packs, warnings, ...(existsSync(lockFile) ? { lock: lockFile } : {}) };
}

/** A root reference as a requirement. Sources this version cannot fetch are refused here, naming the pack. */
function rootRequirement(reference: PackReference, workflowFile: string): Requirement {
  if (reference.signature) fail('AGENTCTL_E_UNSUPPORTED', `pack ${reference.name} has a signature: Sigstore verification is not supported yet, and a signature is never ignored`, workflowFile, 'remove the signature and choose spec.packTrust.unsigned explicitly, or wait for signature support');
  if (reference.source && (reference.path !== undefined || reference.integrity !== undefined)) fail('AGENTCTL_E_SCHEMA', `pack ${reference.name} cannot combine source with the older path/integrity fields`, workflowFile);
  if (!reference.source && (reference.path === undefined || reference.integrity === undefined)) fail('AGENTCTL_E_SCHEMA', `pack ${reference.name} must define source, or both path and integrity`, workflowFile);
  const source: PackSource = reference.source ?? { path: reference.path! };
  supported(reference.name, source, workflowFile);
  let range = reference.version;
  if (!reference.source) {
    // The older form pins an exact version.
    const exact = reference.version.replace(/^=/, '');
    if (validVersion(exact) !== exact) fail('AGENTCTL_E_SCHEMA', `pack ${reference.name}: a path/integrity reference needs an exact version, not "${reference.version}"`, workflowFile);
    range = `=${exact}`;
  } else if (nodeRange(range) === undefined) {
    fail('AGENTCTL_E_SCHEMA', `pack ${reference.name}: "${range}" is not a version requirement`, workflowFile);
  }
  return { name: reference.name, range, source, from: 'the workflow' };
}

function supported(name: string, source: PackSource, file: string): asserts source is { path: string } {
  if ('git' in source) fail('AGENTCTL_E_UNSUPPORTED', `pack ${name} comes from git (${source.git}): git sources are not supported yet`, file, 'vendor the pack into a folder below the workflow and use source: {path: ...}');
  if ('url' in source) fail('AGENTCTL_E_UNSUPPORTED', `pack ${name} comes from an archive (${source.url}): archive sources are not supported yet`, file, 'unpack the archive below the workflow folder and use source: {path: ...}');
}

/** Reads one manifest below `root`, checks it, and returns it with the digest of its bytes. */
export function readManifest(root: string, source: PackSource, expected: string): { manifest: PackManifest; file: string; integrity: string } {
  const label = `pack ${expected}`;
  supported(expected, source, root);
  const file = resolve(root, source.path);
  if (!existsSync(file)) fail('AGENTCTL_E_PACK_MANIFEST_MISSING', `${label}: ${source.path} does not exist below ${root}`, file);
  const real = realpathSync(file);
  const inside = relative(realpathSync(root), real);
  if (inside.startsWith('..') || inside.startsWith(sep)) fail('AGENTCTL_E_PACK_MANIFEST_MISSING', `${label}: ${source.path} resolves outside the workflow folder`, file);
  const stat = statSync(real);
  if (!stat.isFile()) fail('AGENTCTL_E_PACK_MANIFEST_MISSING', `${label}: ${source.path} is not a regular file`, file);
  if (stat.size > MAX_MANIFEST_BYTES) fail('AGENTCTL_E_PACK_MANIFEST_INVALID', `${label}: ${source.path} is larger than 1 MiB`, file);
  const bytes = readFileSync(real);
  const document = parseSource(file, bytes.toString('utf8'));
  const parsed = packManifestSchema.safeParse(document.value);
  if (!parsed.success) {
    const diagnostics = issuesToDiagnostics(parsed.error.issues, document, [], packManifestSchema).map((item) => ({ ...item, code: 'AGENTCTL_E_PACK_MANIFEST_INVALID' as const }));
    throw new AgentctlError('AGENTCTL_E_PACK_MANIFEST_INVALID', `${label}: the manifest ${source.path} is invalid: ${diagnostics[0]?.message ?? 'schema mismatch'}`, { diagnostics });
  }
  const manifest = parsed.data;
  if (manifest.name !== expected) fail('AGENTCTL_E_PACK_RESOLUTION', `pack requirement ${expected} resolved to the manifest of ${manifest.name} (${source.path})`, file);
  if (!satisfies(REFERENCE_FORMAT_VERSION, manifest.agentctl)) {
    fail('AGENTCTL_E_PACK_VERSION', `pack ${manifest.name} needs agentctl "${manifest.agentctl}", and this release implements version ${REFERENCE_FORMAT_VERSION} of the reference format`, file, 'use a version of the pack made for this format version (`agentctl version` shows it)');
  }
  return { manifest, file, integrity: digestOf(bytes) };
}

/** Depth-first resolution from the roots: cycles, conflicting requirements and unmet versions are refused. */
export function resolveGraph(root: string, roots: readonly Requirement[]): LoadedPack[] {
  const resolved = new Map<string, LoadedPack & { readonly requirement: Requirement }>();
  const visit = (requirement: Requirement, stack: readonly string[]): void => {
    if (stack.includes(requirement.name)) fail('AGENTCTL_E_PACK_RESOLUTION', `pack dependencies form a cycle: ${[...stack, requirement.name].join(' → ')}`, root);
    const known = resolved.get(requirement.name);
    if (known) {
      const sameSource = JSON.stringify(known.requirement.source) === JSON.stringify(requirement.source);
      if (!sameSource || !semverSatisfies(known.manifest.version, nodeRange(requirement.range)!)) {
        fail('AGENTCTL_E_PACK_RESOLUTION', `conflicting requirements for pack ${requirement.name}: ${known.requirement.from} wants ${known.requirement.range} from ${describeSource(known.requirement.source)}, ${requirement.from} wants ${requirement.range} from ${describeSource(requirement.source)}`, root, 'make every requirement of a pack name the same source and compatible versions');
      }
      return;
    }
    const { manifest, file, integrity } = readManifest(root, requirement.source, requirement.name);
    if (!semverSatisfies(manifest.version, nodeRange(requirement.range)!)) fail('AGENTCTL_E_PACK_RESOLUTION', `pack ${manifest.name} version ${manifest.version} does not satisfy "${requirement.range}" (required by ${requirement.from})`, file);
    const dependencies: Record<string, string> = {};
    const entry = { name: manifest.name, version: manifest.version, source: requirement.source, integrity, compatibility: manifest.agentctl, dependencies, trust: { status: 'unsigned' as const } };
    resolved.set(manifest.name, { entry, manifest, file, requirement });
    for (const [name, dependency] of Object.entries(manifest.dependencies)) {
      visit({ name, range: dependency.version, source: dependency.source, from: `pack ${manifest.name}` }, [...stack, requirement.name]);
      dependencies[name] = resolved.get(name)!.manifest.version;
    }
  };
  for (const requirement of roots) visit(requirement, []);
  return [...resolved.values()].map(({ entry, manifest, file }) => ({ entry, manifest, file })).sort((a, b) => a.entry.name.localeCompare(b.entry.name));
}

const describeSource = (source: PackSource) => ('path' in source ? source.path : 'git' in source ? `${source.git}@${source.rev}` : source.url);

/** Reads and checks a lock file's own shape. */
export function readLock(lockFile: string): PackLock {
  let value: unknown;
  try {
    value = parse(readFileSync(lockFile, 'utf8'));
  } catch (error) {
    fail('AGENTCTL_E_PACK_LOCK_MISMATCH', `${lockFile} is not valid YAML: ${(error as Error).message}`, lockFile, 'regenerate it with `agentctl packs lock`');
  }
  const parsed = lockSchema.safeParse(value);
  if (!parsed.success) fail('AGENTCTL_E_PACK_LOCK_MISMATCH', `${lockFile} is not a pack lock: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`, lockFile, 'regenerate it with `agentctl packs lock`');
  const lock = parsed.data!;
  const names = new Set<string>();
  for (const entry of lock.packs) {
    if (names.has(entry.name)) fail('AGENTCTL_E_PACK_LOCK_MISMATCH', `${lockFile} lists pack ${entry.name} twice`, lockFile);
    names.add(entry.name);
    // Unlike the reference, a lock is not tied to the agentctl release that wrote it: each pack's range decides.
    if (!satisfies(REFERENCE_FORMAT_VERSION, entry.compatibility)) fail('AGENTCTL_E_PACK_VERSION', `locked pack ${entry.name} needs agentctl "${entry.compatibility}", and this release implements version ${REFERENCE_FORMAT_VERSION} of the reference format`, lockFile);
  }
  return lock;
}

/** The locked load: the resolution must equal the lock, field by field. */
function loadLocked(root: string, lockFile: string, references: readonly PackReference[], roots: readonly Requirement[]): LoadedPack[] {
  const lock = readLock(lockFile);
  const drift = (message: string): never => fail('AGENTCTL_E_PACK_LOCK_MISMATCH', `${message} (${LOCK_FILE} is not rewritten on drift)`, lockFile, 'review the change, then run `agentctl packs update` (or `packs lock`) and commit the lock');
  const byName = new Map(lock.packs.map((entry) => [entry.name, entry]));
  for (const requirement of roots) {
    const entry = byName.get(requirement.name);
    if (!entry) drift(`workflow pack ${requirement.name} is missing from the lock`);
    if (!semverSatisfies(entry!.version, nodeRange(requirement.range)!)) drift(`the workflow wants ${requirement.name} ${requirement.range}, and the lock has ${entry!.version}`);
    if (JSON.stringify(entry!.source) !== JSON.stringify(requirement.source)) drift(`the workflow's source of ${requirement.name} (${describeSource(requirement.source)}) differs from the locked one (${describeSource(entry!.source)})`);
  }
  const packs: LoadedPack[] = [];
  const reachable = new Set<string>();
  const visit = (name: string) => {
    if (reachable.has(name)) return;
    reachable.add(name);
    const entry = byName.get(name);
    if (!entry) drift(`the lock is missing pack ${name}, which the workflow's packs need`);
    const read = readManifest(root, entry!.source, entry!.name);
    if (read.integrity !== entry!.integrity) drift(`pack ${name} changed: ${describeSource(entry!.source)} has the digest ${read.integrity}, the lock pins ${entry!.integrity}`);
    const { manifest } = read;
    if (manifest.version !== entry!.version) drift(`pack ${name} is version ${manifest.version}, the lock has ${entry!.version}`);
    if (manifest.agentctl !== entry!.compatibility) drift(`pack ${name} needs agentctl "${manifest.agentctl}", the lock recorded "${entry!.compatibility}"`);
    const declared = Object.keys(manifest.dependencies).sort();
    if (JSON.stringify(declared) !== JSON.stringify(Object.keys(entry!.dependencies).sort())) drift(`pack ${name} depends on ${declared.join(', ') || 'nothing'}, the lock records ${Object.keys(entry!.dependencies).join(', ') || 'nothing'}`);
    for (const [dependency, required] of Object.entries(manifest.dependencies)) {
      const target = byName.get(dependency);
      if (!target) drift(`the lock is missing pack ${dependency}, a dependency of ${name}`);
      if (entry!.dependencies[dependency] !== target!.version || !semverSatisfies(target!.version, nodeRange(required.version)!)) drift(`dependency ${dependency} of ${name} (${required.version}) does not match the locked version ${target!.version}`);
      if (JSON.stringify(required.source) !== JSON.stringify(target!.source)) drift(`the source of dependency ${dependency} of ${name} differs from the locked one`);
      visit(dependency);
    }
    packs.push({ entry: entry!, manifest, file: read.file });
  };
  for (const reference of references) visit(reference.name);
  const extra = lock.packs.filter((entry) => !reachable.has(entry.name)).map((entry) => entry.name);
  if (extra.length > 0) drift(`the lock holds packs the workflow does not reach: ${extra.join(', ')}`);
  return packs.sort((a, b) => a.entry.name.localeCompare(b.entry.name));
}

function checkLegacyIntegrity(reference: PackReference, packs: readonly LoadedPack[], file: string): void {
  if (reference.integrity === undefined) return;
  const loaded = packs.find((pack) => pack.entry.name === reference.name)!;
  if (loaded.entry.integrity.toLowerCase() !== reference.integrity.toLowerCase()) {
    fail('AGENTCTL_E_PACK_INTEGRITY', `pack ${reference.name}: ${reference.path} has the digest ${loaded.entry.integrity}, the workflow pins ${reference.integrity}`, file, 'review the change to the pack, then update the integrity');
  }
}

/** spec.packTrust for unsigned packs (every pack in this version), dependencies included. */
function applyTrust(packs: readonly LoadedPack[], trust: PackTrust, file: string, runsProcesses: ProcessKinds): Diagnostic[] {
  const warnings: Diagnostic[] = [];
  for (const { manifest } of packs) {
    if (trust.unsigned === 'deny') fail('AGENTCTL_E_PACK_UNTRUSTED', `unsigned pack ${manifest.name} is denied by spec.packTrust.unsigned`, file, 'review the pack, then set spec.packTrust.unsigned to warn or allow');
    if (trust.unsigned === 'warn') warnings.push(diagnostic('AGENTCTL_E_PACK_UNTRUSTED', { severity: 'warning', message: `pack ${manifest.name} is unsigned`, file, path: 'spec.packs', help: 'review the pack and set spec.packTrust.unsigned: allow to accept unsigned packs explicitly' }));
    const process = Object.entries(manifest.actions).find(([, action]) => runsProcesses(action.kind));
    if (process && !trust.allowUnsignedProcess) {
      fail('AGENTCTL_E_PACK_UNTRUSTED', `unsigned pack ${manifest.name} declares process execution (action ${process[0]} is ${process[1].kind})`, file, 'set spec.packTrust.allowUnsignedProcess: true only after reviewing the pack');
    }
  }
  return warnings;
}

/** The lock of a workflow's packs (and the config's code packs, sorted by name), as an object. */
export function lockDocument(packs: readonly LockEntry[], codePacks?: readonly CodePackEntry[]): PackLock {
  return { apiVersion: LOCK_API_VERSION, agentctl: REFERENCE_FORMAT_VERSION, packs: [...packs], ...(codePacks ? { codePacks: [...codePacks].sort((a, b) => a.name.localeCompare(b.name)) } : {}) };
}

/** The lock as the reference writes it: sequences at column 0. */
export function lockText(lock: PackLock): string {
  return stringify(lock, { indentSeq: false, singleQuote: true, lineWidth: 0 });
}

/**
 * Resolves the workflow's packs afresh (ignoring any lock), for `packs lock`, `packs update` and `packs vendor`. As in
 * the reference, spec.packTrust is not applied here: a lock records what the packs are (an unsigned pack that declares
 * process execution included), and every command that loads them (`check`, `run`, `verify-lock`...) applies the trust.
 */
export function resolveForLock(workflowFile: string, document: unknown): LoadedPack[] {
  const spec = packSpec(document);
  if (!spec) return [];
  const root = packRoot(workflowFile);
  const packs = resolveGraph(root, spec.references.map((reference) => rootRequirement(reference, workflowFile)));
  for (const reference of spec.references) checkLegacyIntegrity(reference, packs, workflowFile);
  return packs;
}
