// `agentctl packs ...`: declarative packs of a workflow in the reference format: inspect or verify one manifest,
// write the lock (`lock`, `update`), and check a workflow's packs against it (`verify-lock`). No database is touched.
import { renameSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { CommandModule } from 'yargs';
import { AgentctlError } from '../../../sdk/index.js';
import { processKinds } from '../../compiler/compile.js';
import { parseSource, readBoundedFile } from '../../compiler/source.js';
import { LOCK_FILE, REFERENCE_FORMAT_VERSION } from '../../packs/format.js';
import { digestOf, loadDeclarativePacks, lockText, packSpec, readManifest, resolveForLock } from '../../packs/load.js';
import type { Compose } from '../composition.js';
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

/** Writes the lock beside the workflow atomically: a temporary file, then a rename. */
function writeLock(file: string, text: string): string {
  const target = resolve(dirname(resolve(file)), LOCK_FILE);
  const temporary = `${target}.tmp-${process.pid}`;
  writeFileSync(temporary, text);
  renameSync(temporary, target);
  return target;
}

const inspect: CommandModule<GlobalArgs, FileArgs> = {
  command: 'inspect <file>',
  describe: 'Parse and check one pack manifest; print its name, version and items',
  builder: (yargs) => manifestOption(yargs) as never,
  handler: handler<FileArgs>(async (argv, output) => {
    const file = resolve(argv.file);
    const name = (parseSource(file, readBoundedFile(file, 'pack manifest')).value as { name?: unknown } | null)?.name;
    const { manifest, integrity } = readManifest(dirname(file), { path: file.slice(dirname(file).length + 1) }, typeof name === 'string' ? name : '(unnamed)');
    const items = { actions: Object.keys(manifest.actions), agents: Object.keys(manifest.agents), tools: Object.keys(manifest.tools), workflows: Object.keys(manifest.workflows) };
    emit(output, 'PackInspection', { path: argv.file, integrity, referenceFormatVersion: REFERENCE_FORMAT_VERSION, manifest }, () =>
      [`pack ${manifest.name} ${manifest.version} (agentctl ${manifest.agentctl}) ${integrity}`, ...Object.entries(items).filter(([, names]) => names.length > 0).map(([kind, names]) => `  ${kind}: ${names.map((item) => `${manifest.name}.${item}`).join(', ')}`), ...Object.entries(manifest.dependencies).map(([dependency, spec]) => `  needs ${dependency} ${spec.version}`)].join('\n'),
    );
    return 0;
  }),
};

const verify: CommandModule<GlobalArgs, FileArgs> = {
  command: 'verify <file>',
  describe: "Compare a pack manifest's SHA-256 with --integrity",
  builder: (yargs) => manifestOption(yargs).option('integrity', { type: 'string', demandOption: true, describe: 'the pinned digest, sha256:HEX' }) as never,
  handler: handler<FileArgs>(async (argv, output) => {
    const integrity = digestOf(Buffer.from(readBoundedFile(argv.file, 'pack manifest'), 'utf8'));
    if (integrity !== argv.integrity!.toLowerCase()) {
      throw new AgentctlError('AGENTCTL_E_PACK_INTEGRITY', `pack integrity mismatch for ${argv.file}: expected ${argv.integrity}, got ${integrity}`);
    }
    emit(output, 'PackVerification', { path: argv.file, integrity, valid: true }, () => 'pack integrity verified');
    return 0;
  }),
};

const lock = (update: boolean, compose: Compose): CommandModule<GlobalArgs, FileArgs> => ({
  command: `${update ? 'update' : 'lock'} <file>`,
  describe: update ? "Resolve a workflow's packs again and rewrite agentctl.pack.lock (--pack: a root to update)" : "Resolve a workflow's packs and write agentctl.pack.lock beside it",
  builder: (yargs) => (update ? workflowOption(yargs).option('pack', { type: 'string', describe: 'a pack the workflow declares in spec.packs' }) : workflowOption(yargs)) as never,
  handler: handler<FileArgs>(async (argv, output) => {
    const document = workflowDocument(argv.file);
    if (argv.pack !== undefined && !packSpec(document)?.references.some((reference) => reference.name === argv.pack)) {
      throw new AgentctlError('AGENTCTL_E_USAGE', `${argv.file} does not declare the pack ${argv.pack} in spec.packs`);
    }
    const packs = resolveForLock(argv.file, document, processKinds(compose()));
    const path = writeLock(argv.file, lockText(packs));
    const entries = packs.map((pack) => pack.entry);
    emit(output, update ? 'PackLockUpdate' : 'PackLock', { path, ...(update ? { updated: entries.length } : {}), lock: { agentctl: REFERENCE_FORMAT_VERSION, packs: entries } }, () => `${update ? 'updated' : 'locked'} ${entries.length} pack(s) at ${path}`);
    return 0;
  }),
});

const verifyLock = (compose: Compose): CommandModule<GlobalArgs, FileArgs> => ({
  command: 'verify-lock <file>',
  describe: "Check a workflow's packs against agentctl.pack.lock (as --locked does on every run)",
  builder: (yargs) => workflowOption(yargs) as never,
  handler: handler<FileArgs>(async (argv, output) => {
    const load = loadDeclarativePacks(argv.file, workflowDocument(argv.file), { ...packOptions(argv), locked: true }, processKinds(compose()));
    emit(output, 'PackLockVerification', { path: load.lock ?? null, valid: true, packs: load.packs.map((pack) => pack.entry) }, () => `verified ${load.packs.length} locked pack(s)`, { diagnostics: [...load.warnings] });
    return 0;
  }),
});

export const packsCommand = (compose: Compose): CommandModule<GlobalArgs, GlobalArgs> => ({
  command: 'packs',
  describe: 'Declarative packs: inspect, verify, lock, update, verify-lock',
  builder: (yargs) => yargs.command(inspect).command(verify).command(lock(false, compose)).command(lock(true, compose)).command(verifyLock(compose)).demandCommand(1, 'name a packs command') as never,
  handler: () => undefined,
});
