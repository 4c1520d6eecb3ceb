// Runs the real CLI without root's power over file permissions, for refusals that root would never meet (an
// unreadable secret file). As root: uid/gid 65534 when that user can reach the built CLI, else root itself with the
// capabilities that bypass permission checks dropped (setpriv); as any other user: that user.
import { spawnSync } from 'node:child_process';
import { BIN, baseEnv, type CliResult } from './cli.js';

export const NOBODY = 65534;

export interface Unprivileged {
  /** How the CLI runs, for test titles: `uid 65534`, `root without CAP_DAC_*` or `uid N`. */
  readonly who: string;
  run(args: string[], cwd: string): CliResult;
}

const DROPPED = '-dac_override,-dac_read_search,-fowner';

function reachable(): boolean {
  const probe = spawnSync(process.execPath, ['-e', `require('node:fs').accessSync(${JSON.stringify(BIN)}, 4); import(${JSON.stringify(BIN.replace(/bin\/agentctl\.js$/, 'node_modules/better-sqlite3/package.json'))}, { with: { type: 'json' } })`], { uid: NOBODY, gid: NOBODY, encoding: 'utf8' });
  return probe.status === 0;
}

export function unprivileged(): Unprivileged {
  const env = baseEnv({ HOME: '/nonexistent' });
  const finish = (result: ReturnType<typeof spawnSync>): CliResult => ({ status: result.status, signal: result.signal, stdout: String(result.stdout), stderr: String(result.stderr) });
  const uid = process.getuid?.();
  if (uid !== 0) return { who: `uid ${uid}`, run: (args, cwd) => finish(spawnSync(process.execPath, [BIN, ...args], { cwd, env, encoding: 'utf8', timeout: 60_000 })) };
  if (reachable()) {
    return { who: `uid ${NOBODY}`, run: (args, cwd) => finish(spawnSync(process.execPath, [BIN, ...args], { cwd, env, encoding: 'utf8', timeout: 60_000, uid: NOBODY, gid: NOBODY })) };
  }
  return {
    who: 'root without CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH and CAP_FOWNER',
    run: (args, cwd) => finish(spawnSync('setpriv', ['--inh-caps', DROPPED, '--bounding-set', DROPPED, '--', process.execPath, BIN, ...args], { cwd, env, encoding: 'utf8', timeout: 60_000 })),
  };
}
