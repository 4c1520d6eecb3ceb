// `agentctl packs vendor --out DIR [WORKFLOW...]`: a self-contained folder for CI. Each code pack of the project
// config is bundled with its runtime dependencies into one ESM file (esbuild; agentctl itself stays external, so the
// pack uses the host's SDK); a config lists the bundles; given workflows are copied with their declarative packs; and
// one lock pins every bundle and manifest. `agentctl run --locked --offline` then needs no install of any pack.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import type { CommandModule } from 'yargs';
import { AgentctlError, errorMessage } from '@agentctl/sdk';
import { parseSource, readBoundedFile } from '../../compiler/source.js';
import { pinned } from '../../config/code-lock.js';
import { SDK_EXTERNALS } from '../../packs/host-sdk.js';
import { LOCK_FILE, type CodePackEntry, type LockEntry } from '../../compiler/packs/format.js';
import { lockDocument, lockText, packRoot, resolveForLock } from '../../compiler/packs/load.js';
import { handler, type GlobalArgs } from '../handler.js';
import { emit } from '../output.js';
import { writeAtomically } from '../../files/atomic-write.js';
import type { ProjectPacks } from '../composition.js';

interface VendorArgs extends GlobalArgs {
  out: string;
  workflows?: string[];
}

/** The config file the vendored folder gets: the original's settings, with each pack pointing at its bundle. */
export const VENDORED_CONFIG = 'agentctl.config.json';

/** A file name for a plugin name (`@acme/pack` → `acme__pack.mjs`). */
const bundleName = (plugin: string) => `${plugin.replace(/^@/, '').replace(/[^A-Za-z0-9._-]/g, '__')}.mjs`;

/** The output folder: created, or reused when it holds an earlier vendored folder (its bundles are replaced). */
function prepare(out: string): void {
  if (existsSync(out)) {
    if (!statSync(out).isDirectory()) throw new AgentctlError('AGENTCTL_E_USAGE', `--out ${out} exists and is not a folder`);
    const entries = readdirSync(out);
    if (entries.length > 0 && !entries.includes(LOCK_FILE)) throw new AgentctlError('AGENTCTL_E_USAGE', `--out ${out} is not empty and holds no earlier vendored folder (${LOCK_FILE}); choose an empty or new folder`);
    rmSync(join(out, 'packs'), { recursive: true, force: true });
  }
  mkdirSync(join(out, 'packs'), { recursive: true });
}

/** A path as the person at the terminal types it: relative to the current folder (`ci/agentctl`, `../ci`). */
const shown = (path: string) => relative(process.cwd(), path) || '.';

export const vendorCommand = (project: ProjectPacks): CommandModule<GlobalArgs, VendorArgs> => ({
  command: 'vendor [workflows..]',
  describe: "Bundle the config's code packs (one ESM file each), given workflows with their declarative packs, and one lock into --out",
  builder: (yargs) =>
    yargs
      .positional('workflows', { type: 'string', array: true, describe: 'workflows to copy with their declarative packs' })
      .option('out', { type: 'string', demandOption: true, describe: 'the folder to write (new, empty, or an earlier vendored folder)' }) as never,
  handler: handler<VendorArgs>(async (argv, output) => {
    const { packs, config } = project();
    const workflows = argv.workflows ?? [];
    if (packs.length === 0 && workflows.length === 0) throw new AgentctlError('AGENTCTL_E_USAGE', 'nothing to vendor: list code packs in the project config, or name workflows with spec.packs');
    // Workflows are copied by file name: two of the same name would silently become one.
    const byName = new Map<string, string>();
    for (const workflow of workflows) {
      const other = byName.get(basename(workflow));
      if (other !== undefined) throw new AgentctlError('AGENTCTL_E_USAGE', `workflows ${other} and ${workflow} would both be vendored as ${basename(workflow)}`, { help: 'rename one of them, or vendor them into separate folders (--out)' });
      byName.set(basename(workflow), workflow);
    }
    const out = resolve(argv.out);
    prepare(out);
    const { build } = await import('esbuild');
    const codePacks: CodePackEntry[] = [];
    const configPacks: { path: string; options?: unknown }[] = [];
    for (const pack of packs) {
      const file = join('packs', bundleName(pack.plugin.name));
      try {
        await build({
          entryPoints: [pack.module],
          outfile: join(out, file),
          bundle: true,
          format: 'esm',
          platform: 'node',
          target: 'node20',
          // The host's SDK, never a copy: errors, schemas and hooks must be agentctl's own objects. The run maps these
          // names to the SDK of the agentctl that loads the bundle, wherever that is installed.
          external: [...SDK_EXTERNALS],
          // Bundled CommonJS dependencies may call require(); ESM has none, so the bundle makes one.
          banner: { js: "import { createRequire as __agentctlCreateRequire } from 'node:module';\nconst require = __agentctlCreateRequire(import.meta.url);" },
          legalComments: 'none',
          logLevel: 'silent',
        });
      } catch (error) {
        throw new AgentctlError('AGENTCTL_E_PACK_IMPORT', `pack ${pack.plugin.name} cannot be bundled from ${pack.module}: ${errorMessage(error).split('\n')[0]}`);
      }
      configPacks.push({ path: `./${file}`, ...(pack.entry.options === undefined ? {} : { options: pack.entry.options }) });
      codePacks.push({ name: pack.plugin.name, version: pack.plugin.version, hostRange: pack.plugin.hostRange, source: { path: file }, ...pinned(join(out, file), join(out, LOCK_FILE)) });
    }
    const settings = config?.config ?? { packs: [] };
    const vendoredConfig = { ...(settings.db === undefined ? {} : { db: settings.db }), ...(settings.output === undefined ? {} : { output: settings.output }), ...(settings.color === undefined ? {} : { color: settings.color }), packs: configPacks };
    writeAtomically(join(out, VENDORED_CONFIG), `${JSON.stringify(vendoredConfig, null, 2)}\n`);
    const declarative = new Map<string, LockEntry>();
    for (const workflow of workflows) {
      const document = parseSource(workflow, readBoundedFile(workflow, 'workflow file')).value;
      const target = join(out, basename(workflow));
      copyFileSync(workflow, target);
      for (const pack of resolveForLock(workflow, document)) {
        const known = declarative.get(pack.entry.name);
        if (known && known.integrity !== pack.entry.integrity) throw new AgentctlError('AGENTCTL_E_PACK_RESOLUTION', `the workflows need two different manifests of pack ${pack.entry.name}; vendor them into separate folders`);
        const relativePath = relative(packRoot(workflow), pack.file);
        mkdirSync(dirname(join(out, relativePath)), { recursive: true });
        copyFileSync(pack.file, join(out, relativePath));
        declarative.set(pack.entry.name, pack.entry);
      }
    }
    const lock = join(out, LOCK_FILE);
    writeAtomically(lock, lockText(lockDocument([...declarative.values()].sort((a, b) => a.name.localeCompare(b.name)), codePacks)));
    const bundles = codePacks.map((entry) => { const file = (entry.source as { path: string }).path; return { name: entry.name, file, bytes: readFileSync(join(out, file)).length }; });
    emit(output, 'PackVendor', { out, config: join(out, VENDORED_CONFIG), lock, codePacks: bundles, declarativePacks: [...declarative.keys()], workflows: workflows.map((file) => basename(file)) }, () =>
      [`vendored ${bundles.length} code pack(s) and ${declarative.size} declarative pack(s) into ${shown(out)}`, ...bundles.map((bundle) => `  ${bundle.name}: ${bundle.file} (${bundle.bytes} bytes)`), `run: agentctl run ${shown(join(out, workflows.length === 1 ? basename(workflows[0]!) : 'WORKFLOW'))} --locked --offline`].join('\n'),
    );
    return 0;
  }),
});
