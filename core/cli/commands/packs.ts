// `agentctl packs ...`: declarative packs of a workflow in the reference format: inspect or verify one manifest,
// write the lock (`lock`, `update`), and check a workflow's packs against it (`verify-lock`). No database is touched.
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { CommandModule } from 'yargs';
import { AgentctlError } from '@agentctl/sdk';
import { writeAtomically } from '../../files/atomic-write.js';
import { processKinds } from '../../compiler/compile.js';
import { parseSource, readBoundedFile } from '../../compiler/source.js';
import { codePackEntry } from '../../config/code-lock.js';
import { LOCK_FILE, REFERENCE_FORMAT_VERSION, type CodePackEntry, type LockEntry, type PackLock as PackLockFile } from '../../compiler/packs/format.js';
import { vendorCommand } from './vendor.js';
import { newPackCommand } from './packs-new.js';
import { digestOf, loadDeclarativePacks, lockDocument, lockText, packSpec, readLock, readManifest, resolveForLock } from '../../compiler/packs/load.js';
import type { Compose, ProjectPacks } from '../composition.js';
import { handler, packOptions, type GlobalArgs } from '../handler.js';
import { emit } from '../output.js';

interface FileArgs extends GlobalArgs {
  file: string;
  integrity?: string;
  pack?: string;
}

const manifestOption = (yargs: import('yargs').Argv<GlobalArgs>) => yargs.positional('file', { type: 'string', demandOption: true, describe: 'pack manifest (agentctl.pack.yaml)' });
const workflowOption = (yargs: import('yargs').Argv<GlobalArgs>) => yargs.positional('file', { type: 'string', demandOption: true, describe: 'workflow YAML file' });

/** The workflow document, parsed (its packs are read from it, never compiled). */
const workflowDocument = (file: string) => parseSource(file, readBoundedFile(file, 'workflow file')).value;

/** The lock beside a workflow or config file. */
const lockPathBeside = (file: string) => resolve(dirname(resolve(file)), LOCK_FILE);


const inspect: CommandModule<GlobalArgs, FileArgs> = {
  command: 'inspect <file>',
  describe: 'Parse and check one pack manifest; print its name, version and items',
  builder: (yargs) => manifestOption(yargs) as never,
  handler: handler<FileArgs>(async (argv, output) => {
    const file = resolve(argv.file);
    const name = (parseSource(file, readBoundedFile(file, 'pack manifest')).value as { name?: unknown } | null)?.name;
    const { manifest, integrity } = readManifest(dirname(file), { path: file.slice(dirname(file).length + 1) }, typeof name === 'string' ? name : '(unnamed)');
    const items = { actions: Object.keys(manifest.actions), agents: Object.keys(manifest.agents), tools: Object.keys(manifest.tools), workflows: Object.keys(manifest.workflows) };
    // The reference prints the manifest itself (policyDefaults null when absent); agentctl adds where it was read.
    const data = { ...manifest, policyDefaults: manifest.policyDefaults ?? null, path: argv.file, integrity, referenceFormatVersion: REFERENCE_FORMAT_VERSION };
    emit(output, 'PackInspection', data, () =>
      [`pack ${manifest.name} ${manifest.version} (agentctl ${manifest.agentctl}) ${integrity}`, ...Object.entries(items).filter(([, names]) => names.length > 0).map(([kind, names]) => `  ${kind}: ${names.map((item) => `${manifest.name}.${item}`).join(', ')}`), ...Object.entries(manifest.dependencies).map(([dependency, spec]) => `  needs ${dependency} ${spec.version}`)].join('\n'),
    );
    return 0;
  }),
};

/**
 * The digest `--integrity` pins, as `sha256:HEX`: given in that form (the reference's), or as a Subresource Integrity
 * value `sha256-BASE64`. Anything else is returned as given, so the comparison fails and names it.
 */
function pinnedDigest(given: string): string {
  const sri = /^sha256-([A-Za-z0-9+/]{43}=)$/.exec(given.trim());
  return sri ? `sha256:${Buffer.from(sri[1]!, 'base64').toString('hex')}` : given.trim().toLowerCase();
}

const verify: CommandModule<GlobalArgs, FileArgs> = {
  command: 'verify <file>',
  describe: "Compare a pack manifest's SHA-256 with --integrity",
  builder: (yargs) => manifestOption(yargs).option('integrity', { type: 'string', demandOption: true, describe: 'the pinned digest: sha256:HEX, or sha256-BASE64 (Subresource Integrity)' }) as never,
  handler: handler<FileArgs>(async (argv, output) => {
    const integrity = digestOf(Buffer.from(readBoundedFile(argv.file, 'pack manifest'), 'utf8'));
    if (integrity !== pinnedDigest(argv.integrity!)) {
      throw new AgentctlError('AGENTCTL_E_PACK_INTEGRITY', `pack integrity mismatch for ${argv.file}: expected ${argv.integrity}, got ${integrity}`);
    }
    emit(output, 'PackVerification', { path: argv.file, integrity, valid: true }, () => 'pack integrity verified');
    return 0;
  }),
};

interface LockArgs extends GlobalArgs {
  file?: string;
  pack?: string;
}

/**
 * `packs lock [WORKFLOW]` and `packs update`: the code packs of the config go to the lock beside the config; a
 * workflow's declarative packs to the lock beside the workflow (one file when both are in the same folder). Entries of
 * the other kind already in a lock file are kept.
 */
const lock = (update: boolean, project: ProjectPacks): CommandModule<GlobalArgs, LockArgs> => ({
  command: `${update ? 'update' : 'lock'} [file]`,
  describe: update ? 'Resolve the packs again and rewrite agentctl.pack.lock (--pack: one declared pack to update)' : "Resolve the config's code packs and a workflow's declarative packs, and write agentctl.pack.lock",
  builder: (yargs) =>
    (update
      ? yargs.positional('file', { type: 'string', describe: 'workflow YAML file (its declarative packs)' }).option('pack', { type: 'string', describe: 'a pack of spec.packs or of the config' })
      : yargs.positional('file', { type: 'string', describe: 'workflow YAML file (its declarative packs)' })) as never,
  handler: handler<LockArgs>(async (argv, output) => {
    const { packs: code, config } = project();
    const configFile = config?.file ?? null;
    const written: { path: string; packs: number; codePacks: number; lock: PackLockFile }[] = [];
    const document = argv.file === undefined ? undefined : workflowDocument(argv.file);
    if (argv.pack !== undefined && !(document && packSpec(document)?.references.some((reference) => reference.name === argv.pack)) && !code.some((pack) => pack.plugin.name === argv.pack)) {
      throw new AgentctlError('AGENTCTL_E_USAGE', `no pack ${argv.pack} is declared in ${argv.file ? `${argv.file} (spec.packs) or ` : ''}the project config`);
    }
    const declarative = document ? resolveForLock(argv.file!, document) : [];
    const targets = new Map<string, { packs?: LockEntry[]; codePacks?: CodePackEntry[] }>();
    if (argv.file !== undefined) targets.set(lockPathBeside(argv.file), { packs: declarative.map((pack) => pack.entry) });
    if (configFile !== null && code.length > 0) {
      const path = lockPathBeside(configFile);
      targets.set(path, { ...targets.get(path), codePacks: code.map((pack) => codePackEntry(pack, configFile)) });
    }
    if (targets.size === 0) throw new AgentctlError('AGENTCTL_E_USAGE', 'nothing to lock: name a workflow with spec.packs, or list code packs in the project config');
    for (const [path, entries] of targets) {
      const previous = existsSync(path) ? readLock(path) : undefined;
      const lockFile = lockDocument(entries.packs ?? previous?.packs ?? [], entries.codePacks ?? previous?.codePacks);
      writeAtomically(path, lockText(lockFile));
      written.push({ path, packs: lockFile.packs.length, codePacks: lockFile.codePacks?.length ?? 0, lock: lockFile });
    }
    // The reference's `path` and `lock` are the workflow's lock (the first target); `written` lists every file.
    const [first] = written;
    const data = { path: first!.path, lock: first!.lock, ...(update ? { updated: argv.pack ?? null } : {}), written: written.map(({ lock: _lock, ...item }) => item) };
    emit(output, update ? 'PackLockUpdate' : 'PackLock', data, () => written.map((item) => `${update ? 'updated' : 'locked'} ${item.packs + item.codePacks} pack(s) at ${item.path}`).join('\n'));
    return 0;
  }),
});

const verifyLock = (compose: Compose, project: ProjectPacks): CommandModule<GlobalArgs, LockArgs> => ({
  command: 'verify-lock [file]',
  describe: "Check the config's code packs and a workflow's declarative packs against agentctl.pack.lock (as --locked does on every run)",
  builder: (yargs) => yargs.positional('file', { type: 'string', describe: 'workflow YAML file (its declarative packs)' }) as never,
  handler: handler<LockArgs>(async (argv, output) => {
    // The code packs were checked, as --locked checks them, before this command started (see app.ts).
    const { packs: code, config } = project();
    if (argv.file === undefined && code.length === 0) throw new AgentctlError('AGENTCTL_E_USAGE', 'nothing to verify: name a workflow with spec.packs, or list code packs in the project config', { help: 'usage: agentctl packs verify-lock [file]' });
    const load = argv.file === undefined ? { packs: [], warnings: [] } : loadDeclarativePacks(argv.file, workflowDocument(argv.file), { ...packOptions(argv), locked: true }, processKinds(compose()));
    const codeLock = code.length > 0 && config?.file ? lockPathBeside(config.file) : null;
    const total = load.packs.length + code.length;
    const path = argv.file === undefined ? codeLock! : lockPathBeside(argv.file);
    const warnings = load.warnings.map((warning) => warning.message);
    const data = { path, valid: true, packs: load.packs.map((pack) => pack.entry), warnings, codeLock, codePacks: code.map((pack) => ({ name: pack.plugin.name, version: pack.plugin.version })) };
    emit(output, 'PackLockVerification', data, () => `verified ${total} locked pack(s): ${load.packs.length} declarative, ${code.length} code`, { diagnostics: [...load.warnings] });
    return 0;
  }),
});

export const packsCommand = (compose: Compose, project: ProjectPacks): CommandModule<GlobalArgs, GlobalArgs> => ({
  command: 'packs',
  describe: 'Packs: inspect, verify, lock, update, verify-lock, vendor, new',
  builder: (yargs) => yargs.command(inspect).command(verify).command(lock(false, project)).command(lock(true, project)).command(verifyLock(compose, project)).command(vendorCommand(project)).command(newPackCommand).demandCommand(1, 'name a packs command') as never,
  handler: () => undefined,
});
