// Whether anybody still drives a `running` run: a run whose owner died (SIGKILL, a crash, a lost ledger) is not a
// healthy `running` one, and `runs list` and `inspect` say so.
import { hostname } from 'node:os';
import type { Row } from './rows.js';

/** `active`: a live process holds the run's lease. `interrupted`: nobody drives the run any more. */
export type Liveness = 'active' | 'interrupted';

/**
 * Derived from the lease: `null` for a run that is not `running`; `interrupted` when the lease was released or has
 * expired, or its owner is a process of this host that no longer exists, or names this very process's host and pid
 * under another lease (`self`, this process's own lease owner, when it holds one): a previous process whose pid this
 * one now has, as a container's first process is always pid 1 and a Kubernetes Indexed Job's replacement pod keeps
 * its predecessor's host name. `active` otherwise. Another reused pid can keep an interrupted run `active` until its
 * lease expires (at most a minute after the owner's last renewal).
 */
export function liveness(run: Row, now = Date.now(), self?: string): Liveness | null {
  if (run.state !== 'running') return null;
  const owner = typeof run.lease_owner === 'string' ? run.lease_owner : null;
  const expires = typeof run.lease_expires_at === 'number' ? run.lease_expires_at : 0;
  if (owner === null || expires <= now) return 'interrupted';
  if (owner === self) return 'active';
  // The owner is `host:pid:nonce` (Store.leaseOwner); a host name never holds a colon.
  const parts = owner.split(':');
  const pid = Number(parts.at(-2));
  if (parts.slice(0, -2).join(':') === hostname() && Number.isInteger(pid) && pid > 0 && (pid === process.pid || !processExists(pid))) return 'interrupted';
  return 'active';
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
