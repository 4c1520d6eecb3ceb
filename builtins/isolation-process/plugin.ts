// Isolation mode `process`: a child process of agentctl with an empty environment, its own process group, bounded
// output, a deadline and whole-tree kill. Not a sandbox: the child has agentctl's authority.
import { accessSync, constants, statSync } from 'node:fs';
import { join } from 'node:path';
import { definePlugin, type IsolationHostReport, type ProcessMount } from '@agentctl/sdk';
import { containment } from './containment.js';
import { runProcess } from './spawn.js';

/** Bare command names are looked up here only; the caller's PATH is never used. */
export const SEARCH_PATH = ['/usr/local/bin', '/usr/bin', '/bin'] as const;

/** The executable file a command names: an absolute path as is, a bare name in SEARCH_PATH. */
export function resolveCommand(command: string): string | undefined {
  const candidates = command.startsWith('/') ? [command] : SEARCH_PATH.map((folder) => join(folder, command));
  return candidates.find((candidate) => {
    try {
      accessSync(candidate, constants.X_OK);
      return statSync(candidate).isFile();
    } catch {
      return false;
    }
  });
}

/** Whether each process gets a cgroup of its own here (containment.ts), in the words `doctor` shows. */
function hostReport(): IsolationHostReport {
  const found = containment();
  if (found.available) {
    return { endsEveryDescendant: true, detail: `each process runs in a cgroup of its own (below ${found.base}); a timeout, a cancellation or its exit kills everything in it, setsid and double-forked descendants included` };
  }
  return {
    endsEveryDescendant: false,
    detail: `no cgroup of its own per process here (${found.reason}): a descendant that left the process group and its parent (setsid -f, a daemonizing double fork) outlives a timeout, a cancellation or the program's exit`,
  };
}

/**
 * A child process has no file system view of its own: it sees a workspace path where it is, with agentctl's authority.
 * So the only mount it honours is a writable one whose target is its source's own absolute path (policy judged it a write).
 */
export function refuseProcessMount(mount: ProcessMount): string | undefined {
  if (!('workspace' in mount.source)) return 'a child process has no view of its own to put an artifact in';
  if (mount.readOnly) return "a child process has agentctl's authority: nothing can be made read-only for it (use container isolation)";
  if (mount.target !== mount.source.workspace) return `a child process sees the path only where it is (${mount.source.workspace}): use that as the target`;
  return undefined;
}

export default definePlugin({
  name: 'builtin.isolation.process',
  version: '0.1.0',
  hostRange: '^0.1.0',
  description: `Runs processes as children of agentctl: commands from ${SEARCH_PATH.join(':')} or absolute paths, no shell, empty environment, whole-tree kill.`,
  setup(api) {
    api.registerIsolation({
      mode: 'process',
      description: 'a child process with the agentctl user\'s authority; not a sandbox',
      resolveCommand,
      refuseMount: refuseProcessMount,
      run: (spec, signal) => runProcess(spec, signal),
      hostReport,
    });
  },
});
