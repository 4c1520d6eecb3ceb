// What the image's install must not hold, in one place: the Containerfile's builder removes it from the installed
// CLI (`node scripts/image/prune.mjs /opt/agentctl`), and the image checks (checks.mjs) refuse an image that holds
// any of it. npm packages ship their tests, fixtures, TypeScript sources, docs and native build leftovers; none of
// it runs, and some of it (test keys and certificates) looks exactly like a credential.
import { lstatSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Folder names whose whole content is for development. */
// (Not `doc`, `example` or `build`: packages keep code in such folders, e.g. yaml's dist/doc, yargs' build.)
export const DEV_FOLDERS = Object.freeze(['test', 'tests', '__tests__', 'fixtures', '__fixtures__', 'docs',
  'examples', 'benchmark', 'benchmarks', '.github', 'coverage']);

/** Kept whatever else says: a dependency's license terms travel with it. */
const LEGAL = /^(licen[cs]e|notice|copying|authors|patents)([.-].*)?$/i;

/** File names that are for development: tests, TypeScript sources and declarations, docs, maps, native sources. */
const DEV_FILES = [
  /\.(test|spec)\.[cm]?[jt]sx?$/i,
  /\.(ts|mts|cts|tsx)$/i, // sources and .d.ts declarations alike: nothing compiles against the image
  /\.(md|markdown)$/i,
  /\.map$/i,
  /\.(c|cc|cpp|cxx|h|hh|hpp|o|a|gyp|gypi|mk)$/i,
  /^(tsconfig.*\.json|Makefile|binding\.Makefile)$/,
  // Dotfiles: a package's CI, lint, editor and ignore settings (.travis.yml, .eslintrc, .npmignore…); npm's own
  // record of the tree (node_modules/.package-lock.json) is kept.
  /^\.(?!package-lock\.json$)/,
];

/** Names a credential goes by. The checks refuse them; prune does not remove them, so one is never hidden. */
export const CREDENTIAL_FILES = Object.freeze([
  /\.(pem|key|p12|pfx|jks|keystore|crt|cer|der)$/i, /^id_(rsa|dsa|ecdsa|ed25519)/, /^\.npmrc$/, /^\.netrc$/,
  /^\.env(\..*)?$/, /^credentials(\.json)?$/i, /^\.git-credentials$/, /^\.dockercfg$/, /^config\.json$/,
]);

/** Whether a path (relative, `/`-separated) of the install is development material that prune removes. */
export function isDevPath(path) {
  const parts = path.split('/').filter(Boolean);
  const name = parts.at(-1) ?? '';
  if (LEGAL.test(name)) return false;
  if (parts.slice(0, -1).some((part) => DEV_FOLDERS.includes(part))) return true;
  return DEV_FILES.some((pattern) => pattern.test(name));
}

/** Removes development material under `root`; returns what it removed (count and bytes). */
export function prune(root) {
  let files = 0;
  let bytes = 0;
  const visit = (dir, rel, nativeBuild = false) => {
    const entries = readdirSync(dir, { withFileTypes: true });
    // A native addon's build/ folder: only the compiled addon (build/Release/*.node) is loaded, the rest is leftovers.
    const addon = entries.some((entry) => entry.name === 'binding.gyp');
    for (const entry of entries) {
      const path = join(dir, entry.name);
      const relative = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (entry.name === 'node_modules') {
          visit(path, relative);
        } else if (DEV_FOLDERS.includes(entry.name)) {
          ({ files, bytes } = count(path, files, bytes));
          rmSync(path, { recursive: true });
        } else {
          visit(path, relative, nativeBuild || (addon && entry.name === 'build'));
        }
      } else if (isDevPath(relative) || (nativeBuild && !entry.name.endsWith('.node'))) {
        files += 1;
        bytes += lstatSync(path).size;
        rmSync(path);
      }
    }
  };
  visit(root, '');
  return { files, bytes };
}

function count(dir, files, bytes) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) ({ files, bytes } = count(path, files, bytes));
    else { files += 1; bytes += lstatSync(path).size; }
  }
  return { files, bytes };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = process.argv[2];
  if (!root) throw new Error('usage: node scripts/image/prune.mjs FOLDER');
  const { files, bytes } = prune(root);
  process.stdout.write(`prune: removed ${files} development files (${(bytes / 1048576).toFixed(1)} MiB) from ${root}\n`);
}
