// better-sqlite3 loads its native binding (better_sqlite3.node) at the first database it opens. When that file is
// missing (its install script did not run) or was built for another Node, the failure is the installation's, not the
// database's: it gets its own code and the command that fixes it, instead of "cannot be opened … check --db".
import { dirname, join, sep } from 'node:path';
import { AgentctlError } from '@agentctl/sdk';

const BINDING = 'better_sqlite3.node';
// Node's own words when a binding was built for another ABI (ERR_DLOPEN_FAILED).
const ABI_MISMATCH = /NODE_MODULE_VERSION (\d+)\.\s+This version of Node\.js requires\s+NODE_MODULE_VERSION (\d+)/;
// The `bindings` package's message when no candidate file exists; `tries` lists where it looked.
const NOT_LOCATED = 'Could not locate the bindings file';

/** The binding failure `error` is, as an AGENTCTL_E_SQLITE_BINDING error; undefined for any other error. */
export function sqliteBindingError(error: unknown): AgentctlError | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  const tries = (error as { tries?: unknown }).tries;
  if (error.message.startsWith(NOT_LOCATED) && Array.isArray(tries) && tries.some((path) => String(path).endsWith(BINDING))) {
    const paths = tries.map(String);
    // Where node-gyp and prebuild-install put it; the other candidates are older build layouts.
    const expected = paths.find((path) => path.endsWith(join('build', 'Release', BINDING))) ?? paths[0]!;
    return bindingError(
      `better-sqlite3's native binding is missing: ${expected} does not exist (nor ${paths.length - 1} other places it was looked for), so agentctl cannot open its SQLite database`,
      expected,
      'its install script did not run (an install with --ignore-scripts, or an npm that skips install scripts it was not told to allow)',
      error,
    );
  }
  if (code !== 'ERR_DLOPEN_FAILED' || !error.message.includes(BINDING)) return undefined;
  const file = error.message.match(/'([^']*better_sqlite3\.node)'/)?.[1] ?? error.message.split(':')[0]!;
  const abi = ABI_MISMATCH.exec(error.message);
  if (abi) {
    return bindingError(
      `better-sqlite3's native binding ${file} was built for Node ABI ${abi[1]} (NODE_MODULE_VERSION); this Node ${process.version} is ABI ${abi[2]}`,
      file,
      'it was installed with another Node',
      error,
    );
  }
  return bindingError(`better-sqlite3's native binding ${file} cannot be loaded: ${error.message}`, file, 'the file is damaged or built for another platform', error);
}

function bindingError(message: string, file: string, why: string, cause: Error): AgentctlError {
  return new AgentctlError('AGENTCTL_E_SQLITE_BINDING', message, {
    cause,
    help: `${why}: run \`npm rebuild better-sqlite3\` in ${installFolder(file)} with the Node that runs agentctl (npm 11 runs the install script once it is allowed: \`npm approve-scripts better-sqlite3\` there, or \`npm config set allow-scripts=better-sqlite3 --location=user\` for a global install), or reinstall agentctl without --ignore-scripts`,
  });
}

/** The folder whose node_modules holds better-sqlite3: where `npm rebuild better-sqlite3` finds it. */
function installFolder(file: string): string {
  const marker = `${sep}node_modules${sep}better-sqlite3${sep}`;
  const at = file.lastIndexOf(marker);
  if (at < 0) return dirname(file);
  return file.slice(0, at) || sep;
}
