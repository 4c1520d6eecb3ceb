// Whether a config found by the search is one the user controls, like git's safe.directory: the search never enters a
// folder others can write to (where anyone could plant a config that agentctl would import), and a config file must
// belong to the current user or to root. Naming a file with --config is the user's own choice and skips both checks.
import type { Stats } from 'node:fs';
import { AgentctlError, diagnostic } from '@agentctl/sdk';

/** The current user's id; undefined where there are no POSIX users (Windows), and then nothing is checked. */
const currentUid = (): number | undefined => process.getuid?.();

/**
 * A folder others can write to: group- or world-writable, unless it has the sticky bit and belongs to the current
 * user (then others can add files but not replace or rename the user's own, as in the user's own /tmp).
 */
export function writableByOthers(stats: Stats): boolean {
  const uid = currentUid();
  if (uid === undefined || (stats.mode & 0o022) === 0) return false;
  return !((stats.mode & 0o1000) !== 0 && stats.uid === uid);
}

/** Refuses a config in a folder others can write to: the search found it, nobody named it. */
export function refuseUnsafeFolder(folder: string, file: string): never {
  const message = `config file ${file} is in ${folder}, a folder other users can write to (group- or world-writable, and not a sticky folder of yours); it was not loaded`;
  throw new AgentctlError('AGENTCTL_E_CONFIG_UNSAFE_FOLDER', message, {
    diagnostics: [diagnostic('AGENTCTL_E_CONFIG_UNSAFE_FOLDER', { message, file, help: `if you trust it, name it with --config ${file}; else use --no-config, or run from a folder of your own` })],
  });
}

/** Refuses a config file found by the search that belongs to neither the current user nor root. */
export function checkOwner(file: string, stats: Stats): void {
  const uid = currentUid();
  if (uid === undefined || stats.uid === uid || stats.uid === 0) return;
  const message = `config file ${file} belongs to user id ${stats.uid}, not to you (${uid}) or root; it was not loaded`;
  throw new AgentctlError('AGENTCTL_E_CONFIG_UNTRUSTED_OWNER', message, {
    diagnostics: [diagnostic('AGENTCTL_E_CONFIG_UNTRUSTED_OWNER', { message, file, help: `if you trust it, name it with --config ${file}; else use --no-config` })],
  });
}
