// What `npm install` gives a folder, done offline from this checkout (the tests never reach a registry): the CLI
// (`@agentctl/cli`, and the old name `agentctl`) is a link to the repository, `@agentctl/testing` a copy of its
// folder (so it finds that CLI from where it is installed, as an installed package does), and any other package is
// linked from the repository's own node_modules, with its bin entries, as npm would install it from the registry.
// Without names, the folder's package.json dependencies are installed.
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { ROOT } from './cli.js';

const CLI_NAMES = new Set(['@agentctl/cli', 'agentctl']);
const COPIED = new Set(['@agentctl/testing']);

export function installDependencies(folder: string, names?: readonly string[]): void {
  const wanted = names ?? declared(folder);
  const modules = join(folder, 'node_modules');
  mkdirSync(join(modules, '.bin'), { recursive: true });
  for (const name of wanted) {
    const source = CLI_NAMES.has(name) ? ROOT : join(ROOT, 'node_modules', name);
    if (!existsSync(source)) throw new Error(`${name} is not installed in this checkout; the tests install packages offline only`);
    const target = join(modules, name);
    if (existsSync(target)) continue;
    mkdirSync(dirname(target), { recursive: true });
    if (COPIED.has(name)) cpSync(source, target, { recursive: true, dereference: true });
    else symlinkSync(source, target);
    const manifest = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')) as { bin?: string | Record<string, string> };
    const bins = typeof manifest.bin === 'string' ? { [name]: manifest.bin } : (manifest.bin ?? {});
    for (const [command, path] of Object.entries(bins)) symlinkSync(relative(join(modules, '.bin'), join(target, path)), join(modules, '.bin', command));
  }
  // A pack's tests import the test kit, whose peer is the CLI: npm users install both.
  if (wanted.includes('@agentctl/testing') && !wanted.some((name) => CLI_NAMES.has(name))) installDependencies(folder, ['@agentctl/cli']);
}

function declared(folder: string): string[] {
  const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
  return [...new Set(['dependencies', 'devDependencies', 'peerDependencies'].flatMap((field) => Object.keys(manifest[field] ?? {})))];
}
