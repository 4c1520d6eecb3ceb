// The repository's packages as npm installs them, for the tests that install them for real (test/install/): the
// tarballs `npm pack` makes, a folder of local prebuilds so better-sqlite3's install script takes the binding this
// checkout built instead of compiling SQLite again, and the flags that send the @agentctl scope to a loopback registry
// (test/support/registry.ts) while everything else comes from npm's cache first.
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, type CliResult } from './cli.js';

/** The workspaces packed besides the root package (the CLI). */
const WORKSPACES = ['sdk', 'testing', 'packs/hello', 'packs/http', 'packs/github', 'packs/otel'] as const;

/** The install scripts a project approves (npm 11's `allowScripts`), as docs/dependencies.md recommends. */
export const ALLOW_SCRIPTS = { 'better-sqlite3': true, esbuild: true, 'cpu-features': false, ssh2: false, protobufjs: false } as const;

/** Runs a command without blocking this process (a loopback registry in it keeps answering). */
export function run(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv, timeout = 10 * 60_000): Promise<CliResult> {
  return new Promise((done) => {
    execFile(command, args, { cwd, env, encoding: 'utf8', timeout, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const status = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      done({ status, signal: (error?.signal as NodeJS.Signals | undefined) ?? null, stdout, stderr });
    });
  });
}

/** Packs the CLI and every workspace into `folder` (dist/ is built already); returns tarball paths by file stem. */
export async function packTarballs(folder: string, env: NodeJS.ProcessEnv): Promise<Map<string, string>> {
  mkdirSync(folder, { recursive: true });
  const workspaces = WORKSPACES.flatMap((path) => ['--workspace', path]);
  for (const args of [[], workspaces]) {
    const packed = await run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', folder, ...args], ROOT, env);
    if (packed.status !== 0) throw new Error(`npm pack failed: ${packed.stderr}`);
  }
  return new Map(readdirSync(folder).map((file) => [file.replace(/-\d+\.\d+\.\d+\.tgz$/, ''), join(folder, file)]));
}

/**
 * A local prebuild of better-sqlite3 in `folder` (prebuild-install's local prebuilds, named as its download would
 * be), made of the binding this checkout built; returns the environment entry that points its install script there.
 */
export async function localPrebuilds(folder: string): Promise<NodeJS.ProcessEnv> {
  mkdirSync(folder, { recursive: true });
  const sqlite = join(ROOT, 'node_modules', 'better-sqlite3');
  const { version } = JSON.parse(readFileSync(join(sqlite, 'package.json'), 'utf8')) as { version: string };
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const packed = await run('tar', ['-czf', join(folder, name), '-C', sqlite, 'build/Release/better_sqlite3.node'], ROOT, process.env);
  if (packed.status !== 0) throw new Error(`tar failed: ${packed.stderr}`);
  return { npm_config_better_sqlite3_local_prebuilds: folder };
}

/** npm's flags for an install: the @agentctl scope from the registry at `url`, the rest from the cache first. */
export const npmFlags = (url: string): string[] => [`--@agentctl:registry=${url}`, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'];
