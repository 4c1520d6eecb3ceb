// Containing a process's descendants on Linux: each process starts in a cgroup (v2) of its own, below agentctl's, and
// ending the task writes that cgroup's `cgroup.kill`, which kills every process in it at once. Membership is inherited
// at fork and cannot be shed by setsid, a double fork or reparenting, so a daemon the program started dies with it.
//
// The child is placed without a race: agentctl moves itself into the new cgroup, spawns (Node forks synchronously,
// so the child is born inside) and moves itself back before anything else runs. A cgroup of our own needs write
// access to agentctl's cgroup: root, or a delegated subtree (systemd `Delegate=yes`). PR_SET_CHILD_SUBREAPER is out of
// reach without a native addon, and a PID namespace would make the program PID 1 (signals without a handler ignored,
// orphans to reap), so neither is used. Where the cgroup is unavailable the caller falls back to the group and /proc
// kill, and `doctor` says why.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What this machine allows, found once per process. */
export type Containment = { readonly available: true; readonly base: string } | { readonly available: false; readonly reason: string };

let found: Containment | undefined;
/** The cgroups of processes not finished yet: killed and removed if agentctl exits first (e.g. a second signal). */
const live = new Set<TaskCgroup>();
let exitHooked = false;

/** Whether processes can be contained here, and where their cgroups go (agentctl's own cgroup v2). */
export function containment(): Containment {
  return (found ??= probe());
}

/** One task's cgroup; `kill` ends everything in it, wherever it moved in the process tree. */
export class TaskCgroup {
  constructor(readonly path: string) {}

  /** SIGKILL to every process in the cgroup. */
  kill(): void {
    try {
      writeFileSync(join(this.path, 'cgroup.kill'), '1');
    } catch {
      // Removed already: nothing is left in it.
    }
  }

  /** Whether any process is still in it (a killed process leaves when it has exited). */
  populated(): boolean {
    try {
      return /^populated 1$/m.test(readFileSync(join(this.path, 'cgroup.events'), 'utf8'));
    } catch {
      return false;
    }
  }

  /** Removes the (empty) cgroup. One still populated stays, and stays in the exit hook's list: it is killed again there. */
  remove(): void {
    try {
      rmdirSync(this.path);
    } catch (error) {
      // ENOENT: gone already. EBUSY: a process is still in it.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return;
    }
    live.delete(this);
  }
}

/**
 * Runs `start` (a synchronous spawn) with agentctl inside a new cgroup, so the child starts there. Returns the cgroup,
 * or none when containment is unavailable (or failed for this process: the caller then kills as before).
 */
export function spawnContained<T>(start: () => T): { readonly started: T; readonly cgroup?: TaskCgroup } {
  const here = containment();
  if (!here.available) return { started: start() };
  const path = join(here.base, `agentctl-${process.pid}-${randomBytes(6).toString('hex')}`);
  try {
    mkdirSync(path);
    writeFileSync(join(path, 'cgroup.procs'), String(process.pid));
  } catch {
    new TaskCgroup(path).remove();
    return { started: start() };
  }
  // agentctl could not move back: killing this cgroup would kill agentctl. Nothing more is contained.
  const stuck = () => (found = { available: false, reason: `agentctl could not leave the cgroup ${path}` });
  let started: T;
  try {
    started = start();
  } catch (error) {
    // Nothing started in it: an empty cgroup left behind would only be litter.
    if (leave(here.base)) new TaskCgroup(path).remove();
    else stuck();
    throw error;
  }
  if (!leave(here.base)) {
    stuck();
    return { started };
  }
  const cgroup = new TaskCgroup(path);
  live.add(cgroup);
  if (!exitHooked) {
    exitHooked = true;
    process.on('exit', () => {
      for (const left of [...live]) {
        left.kill();
        left.remove();
      }
    });
  }
  return { started, cgroup };
}

function leave(base: string): boolean {
  try {
    writeFileSync(join(base, 'cgroup.procs'), String(process.pid));
    return true;
  } catch {
    return false;
  }
}

/** agentctl's cgroup v2 folder, when agentctl may create a cgroup there, move into it and back, and kill it. */
function probe(): Containment {
  if (process.platform !== 'linux') return { available: false, reason: `${process.platform} has no cgroups` };
  let own: string | undefined;
  let mount: string | undefined;
  try {
    own = /^0::(\/.*)$/m.exec(readFileSync('/proc/self/cgroup', 'utf8'))?.[1];
    mount = cgroup2Mount(readFileSync('/proc/self/mountinfo', 'utf8'));
  } catch (error) {
    return { available: false, reason: `/proc cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})` };
  }
  if (own === undefined) return { available: false, reason: 'agentctl is in no cgroup v2 hierarchy (cgroup v1 only)' };
  if (mount === undefined) return { available: false, reason: 'no cgroup v2 file system is mounted (cgroup v1 only)' };
  const base = join(mount, own).replace(/(.)\/$/, '$1');
  const trial = join(base, `agentctl-${process.pid}-probe-${randomBytes(6).toString('hex')}`);
  try {
    mkdirSync(trial);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    return { available: false, reason: `agentctl (uid ${process.getuid?.()}) cannot create a cgroup in ${base} (${code}): run it as root or in a delegated cgroup` };
  }
  try {
    if (!existsSync(join(trial, 'cgroup.kill'))) return { available: false, reason: 'the kernel has no cgroup.kill (Linux 5.14 or later has it)' };
    try {
      writeFileSync(join(trial, 'cgroup.procs'), String(process.pid));
    } catch (error) {
      return { available: false, reason: `agentctl cannot move a process into ${trial} (${(error as NodeJS.ErrnoException).code ?? String(error)})` };
    }
    if (!leave(base)) return { available: false, reason: `agentctl cannot move itself back to ${base}` };
    sweep(base);
    return { available: true, base };
  } finally {
    new TaskCgroup(trial).remove();
  }
}

/**
 * Removes the empty cgroups an agentctl killed with SIGKILL left behind (its exit hook never ran). One still holding a
 * process is kept: what runs there is not agentctl's to end now.
 */
function sweep(base: string): void {
  let names: string[];
  try {
    names = readdirSync(base).filter((name) => name.startsWith('agentctl-'));
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^agentctl-(\d+)-/.exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid === process.pid || alive(pid)) continue;
    try {
      rmdirSync(join(base, name));
    } catch {
      // EBUSY: populated; ENOENT: another agentctl removed it.
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The mount point of a cgroup2 file system mounted at its root, from /proc/self/mountinfo. */
export function cgroup2Mount(mountinfo: string): string | undefined {
  for (const line of mountinfo.split('\n')) {
    const [left, right] = line.split(' - ');
    if (!left || !right || right.split(' ')[0] !== 'cgroup2') continue;
    const fields = left.split(' ');
    // Field 4 is the root of the mount within its file system, field 5 where it is mounted (octal escapes for blanks).
    if (fields[3] !== '/' || fields[4] === undefined) continue;
    return fields[4].replace(/\\([0-7]{3})/g, (_match, octal: string) => String.fromCharCode(parseInt(octal, 8)));
  }
  return undefined;
}
