// Identities of a new run: its id (time-ordered, then random) and its trace id.
import { randomBytes } from 'node:crypto';

export function newRunIdentity(): { readonly runId: string; readonly traceId: string } {
  return { runId: `run_${Date.now().toString(36)}${randomBytes(6).toString('hex')}`, traceId: randomBytes(16).toString('hex') };
}
