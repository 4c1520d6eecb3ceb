// What `npm install` gives a pack's folder, done offline from this checkout: node_modules/agentctl is a link to the
// repository (the pack's `"agentctl": "file:../.."` devDependency, which npm installs as exactly such a link), and
// mocha is linked from the repository's own node_modules with its bin, as npm would install it from the registry.
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './cli.js';

export function installPackDependencies(folder: string): void {
  const modules = join(folder, 'node_modules');
  mkdirSync(join(modules, '.bin'), { recursive: true });
  symlinkSync(ROOT, join(modules, 'agentctl'));
  symlinkSync(join(ROOT, 'node_modules', 'mocha'), join(modules, 'mocha'));
  symlinkSync('../mocha/bin/mocha.js', join(modules, '.bin', 'mocha'));
}
