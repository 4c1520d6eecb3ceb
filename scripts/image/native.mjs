// Builder step of the Containerfile: puts the better-sqlite3 addon compiled in its own cached step (keyed on the
// lockfile alone, so a change to agentctl's sources does not compile SQLite again) into the installed CLI, whose
// install ran with --ignore-scripts (a project folder, /opt/agentctl/node_modules), then proves the install's native parts load: SQLite opens a database, esbuild
// transforms code. Refuses a version mismatch instead of copying an addon built for other sources.
//   node scripts/image/native.mjs /opt/native /opt/agentctl
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const ADDON = join('build', 'Release', 'better_sqlite3.node');
const [compiled, install] = process.argv.slice(2);
if (!compiled || !install) throw new Error('usage: node scripts/image/native.mjs COMPILED_PREFIX INSTALL_PREFIX');

/** Every folder of a package named `name` under a node_modules tree. */
function packageFolders(root, name, found = []) {
  const modules = join(root, 'node_modules');
  if (!existsSync(modules)) return found;
  for (const entry of readdirSync(modules)) {
    if (entry.startsWith('.')) continue;
    const children = entry.startsWith('@') ? readdirSync(join(modules, entry)).map((child) => `${entry}/${child}`) : [entry];
    for (const child of children) {
      const folder = join(modules, child);
      if (child === name) found.push(folder);
      packageFolders(folder, name, found);
    }
  }
  return found;
}

const version = (folder) => JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')).version;
const [source] = packageFolders(join(compiled, 'lib'), 'better-sqlite3');
if (!source || !existsSync(join(source, ADDON))) throw new Error(`no compiled better-sqlite3 under ${compiled}`);
const targets = packageFolders(install, 'better-sqlite3');
if (targets.length === 0) throw new Error(`no better-sqlite3 in the install under ${install}`);
for (const target of targets) {
  if (version(target) !== version(source)) {
    throw new Error(`the install holds better-sqlite3 ${version(target)}, the lockfile ${version(source)}: update package-lock.json`);
  }
  // The install ran with --ignore-scripts, so the package has no build/ folder yet.
  mkdirSync(dirname(join(target, ADDON)), { recursive: true });
  copyFileSync(join(source, ADDON), join(target, ADDON));
  const Database = createRequire(join(target, 'package.json'))(target);
  const row = new Database(':memory:').prepare('select sqlite_version() as version').get();
  process.stdout.write(`native: better-sqlite3 ${version(target)} (SQLite ${row.version}) at ${target}\n`);
}
for (const target of packageFolders(install, 'esbuild')) {
  const { code } = createRequire(join(target, 'package.json'))(target).transformSync('let a: number = 1', { loader: 'ts' });
  process.stdout.write(`native: esbuild ${version(target)} transforms (${code.trim()})\n`);
}
