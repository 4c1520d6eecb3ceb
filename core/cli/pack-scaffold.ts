// `agentctl packs new NAME`: a TypeScript code pack made from the templates in scaffold/pack/. The templates ship with
// the CLI beside this module (the build copies them to dist/core/cli/scaffold/pack/, which the bundle's app.js sits
// beside too). The pack is written into a temporary folder beside the target, then renamed into place (or, for an
// empty folder, its entries moved into it), so a failure leaves nothing; with `force`, into a folder that holds other
// files, each file replaced atomically on its own.
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AgentctlError, errorCodePrefix } from '@agentctl/sdk';
import { packNamespaces } from '../host.js';
import { writeAtomically } from '../files/atomic-write.js';
import { HOST_VERSION } from '../version.js';

/** Each file of the pack (its path in the pack) and the template it is made from (in scaffold/pack/). */
export const SCAFFOLD_FILES: Readonly<Record<string, string>> = {
  'package.json': 'package.json.tmpl',
  'tsconfig.json': 'tsconfig.json.tmpl',
  '.gitignore': 'gitignore.tmpl',
  'README.md': 'README.md.tmpl',
  'src/index.ts': 'index.ts.tmpl',
  'test/echo.test.ts': 'echo.test.ts.tmpl',
  'examples/echo.yaml': 'echo.yaml.tmpl',
};

/** The scaffold's templates: beside this module, in the source tree and in dist/ alike. */
export const templateFolder = (): string => join(dirname(fileURLToPath(import.meta.url)), 'scaffold', 'pack');

/** The names a new pack gets from its npm name. */
export interface PackNames {
  readonly name: string;
  /** What every action kind of the pack starts with, before its dot. */
  readonly namespace: string;
  readonly kind: string;
  readonly errorPrefix: string;
}

/** A kind's namespace as workflows write it: letters, digits, `.`, `_` and `-`, starting with a letter or digit. */
const NAMESPACE = /^[a-z0-9][a-z0-9._-]*$/;

function invalidName(name: string, reason: string): AgentctlError {
  return new AgentctlError('AGENTCTL_E_PACK_NAME_INVALID', `${JSON.stringify(name)} is not a name for a new pack: ${reason}`, {
    help: 'give an npm package name: lower case letters, digits, "-", "." and "_", optionally in a scope (@acme/agentctl-pack-deploy)',
  });
}

/** Checks a new pack's npm name (npm's own rules for new packages) and derives its kind namespace and error prefix. */
export async function packNames(name: string): Promise<PackNames> {
  // Loaded on use: no other command needs npm's name rules.
  const { default: validateName } = await import('validate-npm-package-name');
  const verdict = validateName(name);
  if (!verdict.validForNewPackages) throw invalidName(name, [...(verdict.errors ?? []), ...(verdict.warnings ?? [])].join('; '));
  const namespace = packNamespaces(name).at(-1)!;
  if (!NAMESPACE.test(namespace)) {
    throw invalidName(name, `its action kinds would be named ${namespace}.NAME, and a kind's namespace is letters, digits, ".", "_" and "-", starting with a letter or digit`);
  }
  const errorPrefix = errorCodePrefix(name);
  // The host refuses a declared code that does not start with a letter, and the core's own prefix.
  if (!/^[A-Z]/.test(errorPrefix) || errorPrefix === 'AGENTCTL_E_') {
    throw invalidName(name, `its error codes would start with ${errorPrefix}, and a pack's codes start with a letter and never with the core's AGENTCTL_E_`);
  }
  return { name, namespace, kind: `${namespace}.echo`, errorPrefix };
}

/** The folder a pack goes to: `dir` as given, or the name without its scope in the current folder. */
export function targetFolder(names: PackNames, dir: string | undefined, cwd: string): string {
  if (dir === undefined) return resolve(cwd, names.name.replace(/^@[^/]+\//, ''));
  if (dir.trim() === '') throw new AgentctlError('AGENTCTL_E_SCAFFOLD_PATH_ESCAPE', '--dir is empty', { help: 'name the folder to create, e.g. --dir packs/deploy' });
  const target = resolve(cwd, dir);
  // A relative --dir stays below the current folder; an absolute one is where the user said.
  const below = relative(cwd, target);
  if (!isAbsolute(dir) && (below === '..' || below.startsWith(`..${sep}`))) {
    throw new AgentctlError('AGENTCTL_E_SCAFFOLD_PATH_ESCAPE', `--dir ${dir} leads out of the current folder (${target})`, {
      help: 'give a folder below the current one, or an absolute path to create the pack elsewhere',
    });
  }
  if (target === dirname(target)) throw new AgentctlError('AGENTCTL_E_SCAFFOLD_PATH_ESCAPE', `--dir ${dir} is the file system's root`, { help: 'name a folder of its own for the pack' });
  return target;
}

/** The versions the pack's package.json pins: this agentctl's own and its development tools'. */
function versions(): Record<string, string> {
  let dir = dirname(fileURLToPath(import.meta.url));
  let manifest: { name?: string; devDependencies?: Record<string, string> } = {};
  for (; dirname(dir) !== dir; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    manifest = JSON.parse(readFileSync(file, 'utf8')) as typeof manifest;
    if (manifest.name === '@agentctl/cli') break;
  }
  const tool = (name: string) => {
    const version = manifest.devDependencies?.[name];
    if (!version) throw new AgentctlError('AGENTCTL_E_INTERNAL', `agentctl's package.json names no version of ${name} for the pack scaffold`);
    return version;
  };
  return {
    agentctlVersion: HOST_VERSION,
    hostRange: `^${HOST_VERSION}`,
    typescriptVersion: tool('typescript'),
    mochaVersion: tool('mocha'),
    typesNodeVersion: tool('@types/node'),
    typesMochaVersion: tool('@types/mocha'),
  };
}

/** A template with each `%{key}` replaced; a key without a value is a defect of the template. */
export function render(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/%\{([A-Za-z]+)\}/g, (_match, key: string) => {
    const value = values[key];
    if (value === undefined) throw new AgentctlError('AGENTCTL_E_INTERNAL', `the pack scaffold's template names %{${key}}, which has no value`);
    return value;
  });
}

/** The pack's files, path → content. */
export function scaffoldFiles(names: PackNames, folder: string): Record<string, string> {
  const templates = templateFolder();
  if (!existsSync(join(templates, SCAFFOLD_FILES['package.json']!))) {
    throw new AgentctlError('AGENTCTL_E_INTERNAL', `the pack scaffold's templates are missing from ${templates}`, { help: 'reinstall agentctl; its package ships them' });
  }
  const values = { ...versions(), name: names.name, namespace: names.namespace, kind: names.kind, errorPrefix: names.errorPrefix, folder: basename(folder) };
  return Object.fromEntries(Object.entries(SCAFFOLD_FILES).map(([path, template]) => [path, render(readFileSync(join(templates, template), 'utf8'), values)]));
}

/** Refuses a target that exists and is not an empty folder (unless `force`), and one the files cannot go in. */
function checkTarget(target: string, files: Record<string, string>, force: boolean): 'new' | 'empty' | 'existing' {
  if (!existsSync(target) && !isLink(target)) {
    // The folders above it are made as needed: the nearest one that exists must be a folder.
    let above = dirname(target);
    while (!existsSync(above) && dirname(above) !== above) above = dirname(above);
    if (!statSync(above).isDirectory()) throw new AgentctlError('AGENTCTL_E_SCAFFOLD_TARGET', `${above} is not a folder, so ${target} cannot be made in it`, { help: 'choose another --dir' });
    return 'new';
  }
  if (isLink(target) || !statSync(target).isDirectory()) {
    throw new AgentctlError('AGENTCTL_E_SCAFFOLD_TARGET', `${target} exists and is not a folder`, { help: 'choose another --dir' });
  }
  if (readdirSync(target).length === 0) return 'empty';
  if (!force) {
    throw new AgentctlError('AGENTCTL_E_SCAFFOLD_TARGET', `${target} exists and is not empty`, {
      help: 'choose a new or empty folder with --dir, or give --force to write the pack\'s files into it (replacing files of the same names, keeping the others)',
    });
  }
  // Every file must land on a file or nothing, below folders or nothing: checked before anything is written.
  for (const path of Object.keys(files)) {
    const parts = path.split('/');
    for (let depth = 1; depth <= parts.length; depth += 1) {
      const at = join(target, ...parts.slice(0, depth));
      if (!existsSync(at) && !isLink(at)) break;
      const last = depth === parts.length;
      if (isLink(at) || (last ? !statSync(at).isFile() : !statSync(at).isDirectory())) {
        throw new AgentctlError('AGENTCTL_E_SCAFFOLD_TARGET', `${target} holds ${parts.slice(0, depth).join('/')}, where the pack's ${path} would go`, { help: 'move it away, or choose another --dir' });
      }
    }
  }
  return 'existing';
}

const isLink = (path: string) => {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
};

/** Writes the pack's files into `target`; returns the state of the folder before (`new`, `empty` or `existing`). */
export function writeScaffold(target: string, files: Record<string, string>, force: boolean): 'new' | 'empty' | 'existing' {
  const state = checkTarget(target, files, force);
  if (state === 'existing') {
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(target, path)), { recursive: true });
      writeAtomically(join(target, path), content);
    }
    return state;
  }
  mkdirSync(dirname(target), { recursive: true });
  const temporary = join(dirname(target), `.${basename(target)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  try {
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(temporary, path)), { recursive: true });
      writeFileSync(join(temporary, path), content, { flag: 'wx' });
    }
    if (state === 'new') renameSync(temporary, target);
    else moveInto(temporary, target);
  } finally {
    rmSync(temporary, { recursive: true, force: true });
  }
  return state;
}

/**
 * Moves the entries of `from` into the empty folder `target`, which stays the same folder (it may be a shell's current
 * one); if a move fails, those already made are undone.
 */
function moveInto(from: string, target: string): void {
  const moved: string[] = [];
  try {
    for (const entry of readdirSync(from)) {
      renameSync(join(from, entry), join(target, entry));
      moved.push(entry);
    }
  } catch (error) {
    for (const entry of moved) rmSync(join(target, entry), { recursive: true, force: true });
    throw error;
  }
}
