// Build step after `tsc`: tsc emits only compiled modules, so the templates of `agentctl packs new`
// (core/cli/scaffold/) are copied beside the compiled CLI (dist/core/cli/scaffold/), where the code that reads them
// and the bundled app.js both look. The folder is replaced whole, so a template removed from the sources goes too.
import { cpSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE = join(ROOT, 'core', 'cli', 'scaffold');
const TARGET = join(ROOT, 'dist', 'core', 'cli', 'scaffold');

rmSync(TARGET, { recursive: true, force: true });
cpSync(SOURCE, TARGET, { recursive: true });
