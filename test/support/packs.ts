// What `npm install` gives a folder, done offline from this checkout (the tests never reach a registry): agentctl is a
// link to the repository (a pack's `"agentctl": "file:../.."` devDependency, which npm installs as exactly such a
// link), and any other package is linked from the repository's own node_modules, with its bin entries, as npm would
// install it from the registry. Without names, the folder's package.json dependencies are installed.
import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './cli.js';

export function installDependencies(folder: string, names?: readonly string[]): void {
  const wanted = names ?? declared(folder);
  const modules = join(folder, 'node_modules');
  mkdirSync(join(modules, '.bin'), { recursive: true });
  for (const name of wanted) {
    const source = name === 'agentctl' ? ROOT : join(ROOT, 'node_modules', name);
    if (!existsSync(source)) throw new Error(`${name} is not installed in this checkout; the tests install packages offline only`);
    if (existsSync(join(modules, name))) continue;
    symlinkSync(source, join(modules, name));
    const manifest = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')) as { bin?: string | Record<string, string> };
    const bins = typeof manifest.bin === 'string' ? { [name]: manifest.bin } : (manifest.bin ?? {});
    for (const [command, path] of Object.entries(bins)) symlinkSync(join('..', name, path), join(modules, '.bin', command));
  }
}

function declared(folder: string): string[] {
  const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
  return [...new Set(['dependencies', 'devDependencies', 'peerDependencies'].flatMap((field) => Object.keys(manifest[field] ?? {})))];
}
