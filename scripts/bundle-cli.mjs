// Build step after `tsc`: replaces dist/core/cli/app.js (what every command but `--version` loads) with one ESM file
// holding it and every core/ and builtins/ module it reaches. Node then reads, resolves and links one file instead of
// about two hundred, which is most of what a short command costs before it does anything. A module the code loads
// lazily (`await import('./x.js')`) stays lazy: it goes to a chunk next to app.js (`app.chunk-HASH.js`).
//
// What stays outside the bundle, loaded as before:
// - @agentctl/sdk: the public contract has a single module instance per process, the one packs import;
// - dist/core/packs/sdk-hooks.js, the module-resolution hook Node loads by its own URL (on a hooks thread on Node 20);
// - every npm package but those in BUNDLED: zod (packs and the SDK build schemas with it), native and lazily loaded
//   packages, and any package added later;
// - dist/core/cli/main.js, the ES module entry that bin/agentctl.js loads for every command but `--version`.
// BUNDLED are packages of many small files that only core/ uses, so the bundle's copy is the only one a command
// loads. yargs (with yargs-parser, y18n, cliui and what they import) is one of them: it finds its message files and
// the program's folder from the URL of its platform shim, so in the bundle that URL is still the shim's own, found
// from the installed yargs (YARGS_SHIM below). Every other file of dist/ is still emitted by tsc and importable on its
// own (@agentctl/testing).
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'dist', 'core', 'cli');
const APP = join(OUT, 'app.js');
const CHUNK = /^app\.chunk-[A-Z0-9]+\.js$/;
const BUNDLED = new Set(['yaml', 'semver', 'tapable', 'yargs']);
// yargs' ESM platform shim reads `import.meta.url`: in the bundle it is the URL the shim has in the installed yargs.
const YARGS_SHIM = /[\\/]node_modules[\\/]yargs[\\/]lib[\\/]platform-shims[\\/]esm\.mjs$/;
const YARGS_SHIM_URL = "new URL('./lib/platform-shims/esm.mjs', import.meta.resolve('yargs'))";
const OWN_FILES = [join(ROOT, 'dist', 'core', 'packs', 'sdk-hooks.js')];
const MARK = '// agentctl: bundled by scripts/bundle-cli.mjs';
// The bundled CommonJS packages call require() (for node: modules too): an ES module has none of its own.
const REQUIRE = "import { createRequire as __agentctlCreateRequire } from 'node:module';\nconst require = __agentctlCreateRequire(import.meta.url);";

if (readFileSync(APP, 'utf8').startsWith(MARK)) {
  // tsc did not emit app.js again, so it is already the bundle.
  process.exit(0);
}

/** The package a bare specifier names: `semver/functions/valid.js` → `semver`, `@scope/name/x` → `@scope/name`. */
const packageOf = (specifier) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

const boundaries = {
  name: 'agentctl-boundaries',
  setup(builder) {
    // OWN_FILES stay imports, rewritten relative to the folder of app.js (its chunks are in it too).
    builder.onResolve({ filter: /^\.\.?\// }, (args) => {
      const target = resolve(args.resolveDir, args.path);
      if (!OWN_FILES.includes(target)) return undefined;
      const path = relative(OUT, target).split(sep).join('/');
      return { path: path.startsWith('.') ? path : `./${path}`, external: true };
    });
    // A package stays an import unless it is in BUNDLED; what a bundled package requires is bundled with it.
    builder.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:') || args.importer.includes(`${sep}node_modules${sep}`)) return undefined;
      return BUNDLED.has(packageOf(args.path)) ? undefined : { path: args.path, external: true };
    });
    builder.onLoad({ filter: YARGS_SHIM }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      const uses = text.split('import.meta.url').length - 1;
      if (uses !== 2) throw new Error(`bundle-cli: yargs' platform shim reads import.meta.url ${uses} times, not 2: check YARGS_SHIM`);
      return { contents: text.replaceAll('import.meta.url', `(${YARGS_SHIM_URL}).href`), loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};

const result = await build({
  entryPoints: [APP],
  bundle: true,
  splitting: true,
  allowOverwrite: true,
  outdir: OUT,
  entryNames: '[name]',
  chunkNames: 'app.chunk-[hash]',
  write: false,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  plugins: [boundaries],
  logLevel: 'warning',
  legalComments: 'none',
  banner: { js: `${MARK}\n${REQUIRE}` },
});
if (!result.outputFiles.some((file) => file.path === APP)) throw new Error('bundle-cli: esbuild produced no app.js');
for (const name of readdirSync(OUT)) if (CHUNK.test(name)) rmSync(join(OUT, name));
for (const file of result.outputFiles) {
  if (dirname(file.path) !== OUT || !(file.path === APP || CHUNK.test(file.path.slice(OUT.length + 1)))) throw new Error(`bundle-cli: unexpected output ${file.path}`);
  writeFileSync(file.path, file.text);
}
