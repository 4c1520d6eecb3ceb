// The architecture's rules, kept by tests that read the imports of every source file. Each rule is also run against
// a file that breaks it, so a rule that can no longer fail is noticed.
import { execFileSync } from 'node:child_process';
import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { composeHost } from '../../core/cli/composition.js';
import { ROOT } from '../support/cli.js';
import { arrows, importCycles, importGraph, type ImportGraph } from '../support/import-graph.js';

interface SourceFile {
  /** Path relative to the repository root, with `/`. */
  readonly path: string;
  readonly text: string;
}

function* files(folder: string): Generator<SourceFile> {
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (path.endsWith('.ts')) yield { path: relative(ROOT, path).split(sep).join('/'), text: readFileSync(path, 'utf8') };
  }
}

const tree = (folder: string) => [...files(join(ROOT, folder))];
const isTest = (file: SourceFile) => file.path.endsWith('.test.ts');

/** Every module specifier a file imports or re-exports, statically or dynamically. */
const importsOf = (text: string) =>
  [...text.matchAll(/(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g)].map((match) => match[1] ?? match[2] ?? match[3]!);

/** Where a specifier points: a repository path for relative ones, the package name (with subpath) otherwise. */
function target(file: SourceFile, specifier: string): { local: string } | { package: string } {
  if (!specifier.startsWith('.')) return { package: specifier };
  return { local: relative(ROOT, resolve(ROOT, dirname(file.path), specifier)).split(sep).join('/') };
}

const within = (path: string, folder: string) => path === folder || path.startsWith(`${folder}/`);
/** agentctl's own packages (`@agentctl/*`) and the name it had before them (`agentctl`, `agentctl/sdk`...). */
const isOwnPackage = (name: string) => name.startsWith('@agentctl/') || name === 'agentctl' || name.startsWith('agentctl/');
/** The SDK's entry points: the one way into agentctl for a builtin or a pack. */
const SDK_ENTRIES = new Set(['@agentctl/sdk', '@agentctl/sdk/documents', '@agentctl/sdk/process']);
const pluginFolder = (path: string) => path.split('/').slice(0, 2).join('/');

type Rule = (file: SourceFile) => string[];

/** sdk/ owns the contract: it imports nothing of core/ or builtins/, not even through a package name. */
const sdkRule: Rule = (file) =>
  importsOf(file.text).flatMap((specifier) => {
    const to = target(file, specifier);
    if ('local' in to) return within(to.local, 'sdk') ? [] : [`${file.path} imports ${specifier}`];
    return isOwnPackage(to.package) ? [`${file.path} imports ${specifier}`] : [];
  });

/**
 * Outside sdk/, the SDK is imported by its package name only, never by path: the CLI, its builtins and every pack
 * then share the one module instance `@agentctl/sdk` resolves to.
 */
const sdkByNameRule: Rule = (file) =>
  importsOf(file.text).flatMap((specifier) => {
    const to = target(file, specifier);
    return 'local' in to && within(to.local, 'sdk') ? [`${file.path} imports ${specifier}`] : [];
  });

/**
 * A builtin imports the SDK (by name) and its own folder only (the index names the plugin folders). Its tests may also
 * use the test kit, `@agentctl/cli/testing` (what `@agentctl/testing` re-exports), as an outside author does.
 */
const builtinRule: Rule = (file) =>
  importsOf(file.text).flatMap((specifier) => {
    const to = target(file, specifier);
    if ('package' in to) {
      const allowed = SDK_ENTRIES.has(to.package) || (isTest(file) && to.package === '@agentctl/cli/testing');
      return isOwnPackage(to.package) && !allowed ? [`${file.path} imports ${specifier}`] : [];
    }
    if (file.path === 'builtins/index.ts' && /^builtins\/[^/]+\/plugin$/.test(to.local.replace(/\.js$/, ''))) return [];
    return within(to.local, pluginFolder(file.path)) ? [] : [`${file.path} imports ${specifier}`];
  });

const isPackTest = (path: string) => /\.test\.[cm]?[jt]s$/.test(path) || /^packs\/[^/]+\/test\//.test(path);

/** The packages a pack declares in its own package.json, besides agentctl's own. */
function packDependencies(pack: string): Set<string> {
  const manifest = JSON.parse(readFileSync(join(ROOT, pack, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
  return new Set(['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'].flatMap((field) => Object.keys(manifest[field] ?? {})).filter((name) => !isOwnPackage(name)));
}

/** A package's name from a bare specifier (`@scope/name/sub` → `@scope/name`). */
const packageName = (specifier: string) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

/**
 * A pack is built as an outside author builds one: it imports agentctl only through `@agentctl/sdk` and its
 * `/documents` and `/process` (its tests also `@agentctl/testing`), node's own modules, the packages its package.json
 * declares, and files of its own folder — never core/, sdk/ or builtins/ by path.
 */
function packRule(dependencies: (pack: string) => Set<string>): Rule {
  return (file) =>
    importsOf(file.text).flatMap((specifier) => {
      const to = target(file, specifier);
      if ('local' in to) return within(to.local, pluginFolder(file.path)) ? [] : [`${file.path} imports ${specifier}`];
      if (SDK_ENTRIES.has(to.package) || (to.package === '@agentctl/testing' && isPackTest(file.path))) return [];
      if (to.package.startsWith('node:')) return [];
      const own = packageName(to.package);
      return !isOwnPackage(own) && dependencies(pluginFolder(file.path)).has(own) ? [] : [`${file.path} imports ${specifier}`];
    });
}

/** Every source file of packs/ (JavaScript or TypeScript), without installed dependencies. */
function* packFiles(folder: string): Generator<SourceFile> {
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    if (name === 'node_modules') continue;
    if (statSync(path).isDirectory()) yield* packFiles(path);
    else if (/\.[cm]?[jt]s$/.test(name)) yield { path: relative(ROOT, path).split(sep).join('/'), text: readFileSync(path, 'utf8') };
  }
}

const COMPOSITION_ROOT = 'core/cli/composition.ts';

/** Only the composition root names the builtins. */
const coreRule: Rule = (file) =>
  file.path === COMPOSITION_ROOT
    ? []
    : importsOf(file.text).flatMap((specifier) => {
        const to = target(file, specifier);
        return 'local' in to && within(to.local, 'builtins') ? [`${file.path} imports ${specifier}`] : [];
      });

/** The core's own task bodies (agent, flow): only the composition root imports them; each imports only its own folder of them. */
const BODY_FOLDERS = ['core/agents', 'core/flow'];
const bodyImportRule: Rule = (file) =>
  file.path === COMPOSITION_ROOT
    ? []
    : importsOf(file.text).flatMap((specifier) => {
        const to = target(file, specifier);
        if (!('local' in to)) return [];
        const folder = BODY_FOLDERS.find((candidate) => within(to.local, candidate));
        return folder && !within(file.path, folder) ? [`${file.path} imports ${specifier}`] : [];
      });

/**
 * "Is it an agent?" is a question to the task's body: no core file compares with the agent or flow kind constant, nor
 * a kind with the agent kind's name. (`uses: agent:NAME` is syntax: its form is compared, not a task's kind.)
 */
const BODY_KIND = '(?:AGENT_KIND|FLOW_KIND)';
const AGENT_NAME = String.raw`['"\x60]agent['"\x60]`;
const BODY_KIND_COMPARISON = new RegExp(
  [String.raw`[!=]==?\s*${BODY_KIND}`, String.raw`${BODY_KIND}\s*[!=]==?`, String.raw`\.has\(\s*${BODY_KIND}`, String.raw`case\s+(?:${BODY_KIND}|${AGENT_NAME})`, String.raw`kind\s*[!=]==?\s*${AGENT_NAME}`, String.raw`${AGENT_NAME}\s*[!=]==?\s*[\w.]*kind\b`].join('|'),
  'i',
);
const bodyKindRule: Rule = (file) => (BODY_KIND_COMPARISON.test(file.text) ? [`${file.path} compares a kind with the agent or flow kind`] : []);

const ORDINARY_WORDS = new Set(['file']);

/** Kinds are keys, not branches: core/ never names a builtin's kind, isolation mode or secret form, nor switches on a kind. */
function namingRule(names: readonly string[]): Rule {
  // The `file` secret form is also an ordinary word of the core (a CLI positional, a diagnostic field), so it is
  // looked for only where a secret form is named: a resolver lookup or a form check.
  const quoted = (name: string) => (ORDINARY_WORDS.has(name) ? [`for('${name}')`, `hasSecretForm('${name}')`] : [`'${name}'`, `"${name}"`, `\`${name}\``]);
  return (file) => [
    ...names.filter((name) => quoted(name).some((text) => file.text.includes(text))).map((name) => `${file.path} names ${name}`),
    ...(/switch\s*\(\s*[\w.]*(kind|mode|form)\s*\)/i.test(file.text) ? [`${file.path} switches on a kind`] : []),
  ];
}

function builtinNames(): string[] {
  return composeHost()
    .plugins()
    .filter((plugin) => plugin.source === 'builtin')
    .flatMap((plugin) => [...plugin.actionKinds, ...plugin.isolationModes, ...plugin.secretForms]);
}

describe('code boundaries', () => {
  it('sdk/ imports nothing from core/ or builtins/', () => {
    expect(tree('sdk').flatMap(sdkRule)).to.deep.equal([]);
  });

  it('builtins/ import only @agentctl/sdk and their own folder', () => {
    expect(tree('builtins').flatMap(builtinRule)).to.deep.equal([]);
  });

  it('outside sdk/, the SDK is imported as @agentctl/sdk, never by path', () => {
    const sources = ['core', 'builtins', 'test', 'bench'].flatMap(tree).filter((file) => file.path !== 'test/unit/boundaries.test.ts');
    expect(sources.flatMap(sdkByNameRule)).to.deep.equal([]);
  });

  it('packs/ import agentctl only through @agentctl/sdk*, besides node modules, their declared dependencies and their own folder', () => {
    const files = [...packFiles(join(ROOT, 'packs'))];
    expect(files.map((file) => file.path)).to.include('packs/hello/index.mjs');
    expect(files.flatMap(packRule(packDependencies))).to.deep.equal([]);
  });

  it('no file of core/ but the composition root imports builtins/', () => {
    expect(tree('core').flatMap(coreRule)).to.deep.equal([]);
    expect(importsOf(readFileSync(join(ROOT, COMPOSITION_ROOT), 'utf8'))).to.include('../../builtins/index.js');
  });

  it('core/ names no builtin kind, isolation mode or secret form', () => {
    const names = builtinNames();
    expect(names).to.include.members(['builtin.write', 'builtin.shell.exec', 'process', 'env']);
    expect(tree('core').flatMap(namingRule(names))).to.deep.equal([]);
  });

  it('no file of core/ but the composition root imports the core\'s task bodies (core/agents/, core/flow/), and none compares a kind with theirs', () => {
    const core = tree('core');
    expect(core.flatMap(bodyImportRule)).to.deep.equal([]);
    expect(core.flatMap(bodyKindRule)).to.deep.equal([]);
    expect(importsOf(readFileSync(join(ROOT, COMPOSITION_ROOT), 'utf8'))).to.include.members(['../agents/plugin.js', '../flow/plugin.js']);
    // Each rule fails on a file that breaks it.
    const file = (path: string, text: string): SourceFile => ({ path, text });
    expect(bodyImportRule(file('core/runner/run.ts', "import { modelUsage } from '../agents/usage.js';"))).to.have.length(1);
    expect(bodyImportRule(file('core/host.ts', "import { flowKind } from './flow/kind.js';"))).to.have.length(1);
    expect(bodyImportRule(file('core/agents/loop.ts', "import { flowKind } from '../flow/kind.js';"))).to.have.length(1);
    expect(bodyImportRule(file('core/agents/loop.ts', "import { callTool } from './tools.js';"))).to.deep.equal([]);
    expect(bodyKindRule(file('core/x.ts', 'if (task.kind === AGENT_KIND) {}'))).to.have.length(1);
    expect(bodyKindRule(file('core/x.ts', "const agents = tasks.filter((task) => task.kind !== 'agent');"))).to.have.length(1);
    expect(bodyKindRule(file('core/x.ts', "if (FLOW_KIND === kind) {}"))).to.have.length(1);
    expect(bodyKindRule(file('core/x.ts', 'const body = host.taskBody(task.kind);'))).to.deep.equal([]);
  });

  it('each rule fails on a file that breaks it', () => {
    const file = (path: string, text: string): SourceFile => ({ path, text });
    expect(sdkRule(file('sdk/x.ts', "import { Host } from '../core/host.js';"))).to.have.length(1);
    expect(sdkRule(file('sdk/x.ts', "export { a } from '../builtins/write/plugin.js';"))).to.have.length(1);
    expect(sdkRule(file('sdk/x.ts', "const m = await import('@agentctl/cli/testing');"))).to.have.length(1);
    expect(sdkRule(file('sdk/x.ts', "import { main } from 'agentctl';"))).to.have.length(1);
    expect(sdkByNameRule(file('core/x.ts', "import { z } from '../sdk/index.js';"))).to.have.length(1);
    expect(sdkByNameRule(file('core/x.ts', "import { z } from '@agentctl/sdk';"))).to.deep.equal([]);
    expect(builtinRule(file('builtins/write/plugin.ts', "import { Store } from '../../core/store/store.js';"))).to.have.length(1);
    expect(builtinRule(file('builtins/write/plugin.ts', "import { resolveCommand } from '../isolation-process/plugin.js';"))).to.have.length(1);
    expect(builtinRule(file('builtins/write/plugin.ts', "import { runAction } from '@agentctl/cli/testing';"))).to.have.length(1);
    expect(builtinRule(file('builtins/write/write.test.ts', "import { runAction } from '@agentctl/cli/testing';"))).to.deep.equal([]);
    expect(builtinRule(file('builtins/write/plugin.ts', "import { z } from '@agentctl/sdk';"))).to.deep.equal([]);
    const pack = packRule(() => new Set(['yaml']));
    expect(pack(file('packs/x/index.mjs', "import { Host } from '../../core/host.js';"))).to.have.length(1);
    expect(pack(file('packs/x/index.mjs', "import { definePlugin } from '../../sdk/index.js';"))).to.have.length(1);
    expect(pack(file('packs/x/index.mjs', "import { main } from '@agentctl/cli';"))).to.have.length(1);
    expect(pack(file('packs/x/index.mjs', "import { main } from 'agentctl/dist/core/cli/app.js';"))).to.have.length(1);
    expect(pack(file('packs/x/index.mjs', "import agentctl from 'agentctl';"))).to.have.length(1);
    expect(pack(file('packs/x/index.mjs', "import { runAction } from '@agentctl/testing';"))).to.have.length(1);
    expect(pack(file('packs/x/index.mjs', "import left from 'left-pad';"))).to.have.length(1);
    expect(pack(file('packs/x/test/x.test.mjs', "import { runAction } from '@agentctl/testing';"))).to.deep.equal([]);
    expect(pack(file('packs/x/index.mjs', "import { z } from '@agentctl/sdk';\nimport { readFile } from 'node:fs/promises';\nimport { parse } from 'yaml';\nimport { a } from './lib/a.mjs';"))).to.deep.equal([]);
    expect(coreRule(file('core/setup.ts', "import { builtinPlugins } from '../builtins/index.js';"))).to.have.length(1);
    expect(namingRule(['builtin.write'])(file('core/x.ts', "if (kind === 'builtin.write') {}"))).to.have.length(1);
    expect(namingRule([])(file('core/x.ts', 'switch (task.kind) {}'))).to.have.length(1);
  });

  it('the version constant equals package.json', async () => {
    const { HOST_VERSION } = await import('../../core/version.js');
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(HOST_VERSION).to.equal(manifest.version);
  });

  it('the CLI package publishes the test kit from core/testing, which @agentctl/testing re-exports, and depends on its exact SDK', () => {
    type Manifest = { name: string; version: string; exports: Record<string, { default: string }>; dependencies: Record<string, string> };
    const read = (path: string) => JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as Manifest;
    const cli = read('package.json');
    const sdk = read('sdk/package.json');
    expect(cli.name).to.equal('@agentctl/cli');
    expect(cli.exports['./testing']!.default).to.equal('./dist/core/testing/index.js');
    expect(cli.dependencies['@agentctl/sdk']).to.equal(sdk.version);
    expect(sdk.exports['.']!.default).to.equal('./dist/index.js');
    expect(Object.keys(sdk.dependencies).sort()).to.deep.equal(['ajv', 'zod']);
    expect(readFileSync(join(ROOT, 'testing', 'index.js'), 'utf8')).to.contain("export * from '@agentctl/cli/testing';");
  });
});

/**
 * The rooms of core/ by floor, lowest first (sdk/ is the ground floor; builtins/ stand on it alone, see above). A room
 * imports its own floor and the floors below it, never one above: the host and its hooks know no workflow; the
 * compiler (with the declarative packs a workflow names) knows no project config; the config and the code packs it
 * loads know no ledger; the ledger knows no runner; the views (plan, policy preview, progress, schema) read what is
 * below them; the CLI stands on all of it, and the test kit on the CLI's composition root.
 */
const FLOORS: readonly (readonly string[])[] = [
  ['sdk'],
  ['core/version.ts', 'core/text.ts', 'core/spec-keys.ts', 'core/hooks.ts', 'core/plugin-errors.ts', 'core/action-shape.ts', 'core/files', 'core/policy'],
  ['core/propagation.ts', 'core/interceptors.ts', 'core/isolation-options.ts'],
  ['core/host.ts', 'core/plugin-api.ts', 'core/process-service.ts', 'core/setup.ts'],
  ['core/compiler'],
  ['core/config', 'core/packs'],
  ['core/store', 'core/memory'],
  ['core/runner', 'core/agents', 'core/flow'],
  ['core/plan-document.ts', 'core/plan-view.ts', 'core/policy-preview.ts', 'core/schema.ts', 'core/progress.ts', 'core/stream-events.ts'],
  ['core/cli'],
  ['core/testing'],
];

/** A file's floor (by its room: the longest folder or file of FLOORS it is in); undefined outside core/ and sdk/. */
const floorOf = (file: string): number | undefined => FLOORS.findIndex((rooms) => rooms.some((room) => within(file, room)));

/** Imports that run up a floor. */
const upwardArrows = (graph: ImportGraph): string[] =>
  arrows(graph)
    .filter(({ from, to }) => (floorOf(from) ?? -1) >= 0 && (floorOf(to) ?? -1) > floorOf(from)!)
    .map(({ from, to }) => `${from} -> ${to}`)
    .sort();

/**
 * Known exceptions: none today. A cycle or an upward arrow that must land before it can be closed is listed here with
 * the change that will close it; an entry that no longer occurs fails the test too, so the lists only ever shrink.
 */
const KNOWN_CYCLES: readonly string[] = [];
const KNOWN_UPWARD: readonly string[] = [];

describe('import graph', () => {
  // Type-only imports count: a cycle through types still means neither file can be read, moved or published alone.
  const graph = importGraph(ROOT, ['sdk', 'core', 'builtins']);

  it('no import cycle among the sources of core/, builtins/ and sdk/ (type-only imports included), but the known ones', () => {
    const cycles = importCycles(graph).map((files) => files.join(' '));
    expect(graph.size).to.be.greaterThan(200);
    expect(cycles.filter((cycle) => !KNOWN_CYCLES.includes(cycle))).to.deep.equal([]);
    expect(KNOWN_CYCLES.filter((cycle) => !cycles.includes(cycle)), 'closed cycles to remove from KNOWN_CYCLES').to.deep.equal([]);
  });

  it('every file of core/ and sdk/ has a floor, and no import runs up a floor, but the known ones', () => {
    expect([...graph.keys()].filter((file) => !within(file, 'builtins') && floorOf(file) === -1)).to.deep.equal([]);
    const upward = upwardArrows(graph);
    expect(upward.filter((arrow) => !KNOWN_UPWARD.includes(arrow))).to.deep.equal([]);
    expect(KNOWN_UPWARD.filter((arrow) => !upward.includes(arrow)), 'closed arrows to remove from KNOWN_UPWARD').to.deep.equal([]);
  });

  it('the cycle and floor rules fail on imports that break them', () => {
    const graphOf = (edges: Record<string, string[]>): ImportGraph => new Map(Object.entries(edges).map(([from, to]) => [from, new Set(to)]));
    // The cycles closed in this round, as they were.
    expect(importCycles(graphOf({ 'core/cli/commands/run.ts': ['core/cli/commands/compensate.ts'], 'core/cli/commands/compensate.ts': ['core/cli/commands/run.ts'] }))).to.deep.equal([['core/cli/commands/compensate.ts', 'core/cli/commands/run.ts']]);
    expect(importCycles(graphOf({ 'a.ts': ['b.ts'], 'b.ts': ['c.ts'], 'c.ts': ['a.ts'], 'd.ts': ['a.ts'] }))).to.deep.equal([['a.ts', 'b.ts', 'c.ts']]);
    expect(importCycles(graphOf({ 'a.ts': ['b.ts'], 'b.ts': [] }))).to.deep.equal([]);
    // The upward arrows closed in this round, as they were.
    const closed = graphOf({
      'core/config/settings.ts': ['core/cli/database-option.ts'],
      'core/compiler/compile.ts': ['core/packs/load.ts'],
      'core/compiler/envelope.ts': ['core/packs/reference.ts'],
      'core/packs/code-lock.ts': ['core/config/packs.ts'],
      'core/cli/app.ts': ['core/compiler/compile.ts'],
    });
    expect(upwardArrows(closed)).to.deep.equal([
      'core/compiler/compile.ts -> core/packs/load.ts',
      'core/compiler/envelope.ts -> core/packs/reference.ts',
      'core/config/settings.ts -> core/cli/database-option.ts',
    ]);
    expect(floorOf('core/compiler/packs/load.ts')).to.equal(floorOf('core/compiler/compile.ts'));
  });
});

describe('start-up cost', () => {
  it('composing the host loads no container engine client: dockerode is loaded by the first container action', () => {
    const script = [
      "import { createRequire } from 'node:module';",
      `await import(${JSON.stringify(join(ROOT, 'dist', 'core', 'cli', 'composition.js'))});`,
      'const loaded = Object.keys(createRequire(import.meta.url).cache);',
      "process.stdout.write(JSON.stringify({ modules: loaded.length, dockerode: loaded.filter((path) => path.includes('dockerode')).length }));",
    ].join('\n');
    const result = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as { modules: number; dockerode: number };
    expect(result.modules).to.be.greaterThan(0);
    expect(result.dockerode).to.equal(0);
  });

  it('the built CLI app is one bundle: of dist/ it imports only its chunks and, lazily, the SDK hook; the SDK by its package name; and it loads lazy packages lazily', () => {
    const folder = join(ROOT, 'dist', 'core', 'cli');
    const bundle = ['app.js', ...readdirSync(folder).filter((name) => /^app\.chunk-[A-Z0-9]+\.js$/.test(name))];
    const statics: string[] = [];
    const dynamics: string[] = [];
    for (const name of bundle) {
      const text = readFileSync(join(folder, name), 'utf8');
      expect(text.startsWith('// agentctl: bundled by scripts/bundle-cli.mjs'), `${name} is the bundle`).to.equal(true);
      statics.push(...[...text.matchAll(/^(?:import|export)\s[^;]*?from\s*"([^"]+)";?$|^import\s*"([^"]+)";?$/gm)].map((match) => match[1] ?? match[2]!));
      dynamics.push(...[...text.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g)].map((match) => match[1]!));
    }
    const local = [...statics, ...dynamics].filter((specifier) => specifier.startsWith('.'));
    // The one other file: the SDK resolution hook, which Node loads by its own URL, imported only when a pack loads.
    expect(local.filter((specifier) => !/^\.\/app\.chunk-[A-Z0-9]+\.js$/.test(specifier))).to.deep.equal(['../packs/sdk-hooks.js']);
    expect(dynamics).to.include('../packs/sdk-hooks.js');
    // Node's own modules, with or without `node:` (bundled packages such as yargs write `fs`), are no packages.
    const packages = new Set(statics.filter((specifier) => !specifier.startsWith('.') && !isBuiltin(specifier)));
    // The OpenTelemetry pack's entry is small and imports no @opentelemetry package (its own test checks that).
    // yargs is in the bundle (its many small files were a tenth of a short command's start-up); the documents' schemas
    // (@agentctl/sdk/documents) are loaded by the commands that print or check them, never at start.
    expect([...packages].sort()).to.deep.equal(['@agentctl/pack-otel', '@agentctl/sdk', 'better-sqlite3', 'zod']);
    expect(new Set(dynamics.filter((specifier) => !specifier.startsWith('.')))).to.deep.equal(new Set(['@agentctl/sdk/documents', 'cosmiconfig', 'dockerode', 'esbuild', 'log-update', 'undici', 'validate-npm-package-name']));
  });
});
