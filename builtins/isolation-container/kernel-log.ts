// Whether the kernel's OOM killer acted in a container's memory cgroup, read from the kernel log. Needed because
// Podman 4 with runc on cgroup v1 does not report OOMKilled (a memory kill there looks like any exit 137). The kernel
// names the cgroup whose limit was hit (`oom_memcg=/libpod_parent/libpod-<id>`, `/docker/<id>`), so the record is
// exact. Only possible on the engine's own host with read access to /dev/kmsg (root, or dmesg_restrict off).
import { closeSync, constants, openSync, readSync } from 'node:fs';

/** At most this many records are read: the kernel's ring buffer holds far fewer. */
const MAX_RECORDS = 100_000;

/** True when the kernel log records an OOM kill in the memory cgroup of the container with this full id. */
export function oomKilledInKernelLog(containerId: string, path = '/dev/kmsg'): boolean {
  if (!/^[0-9a-f]{64}$/.test(containerId)) return false;
  let descriptor: number;
  try {
    descriptor = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return false;
  }
  const record = Buffer.alloc(8192);
  try {
    for (let count = 0; count < MAX_RECORDS; count += 1) {
      let length: number;
      try {
        length = readSync(descriptor, record, 0, record.length, null);
      } catch (error) {
        // EPIPE: records were overwritten while reading; the next read goes on from the oldest left.
        if ((error as NodeJS.ErrnoException).code === 'EPIPE') continue;
        return false;
      }
      if (length === 0) return false;
      const text = record.toString('latin1', 0, length);
      if (text.includes('oom_memcg=') && new RegExp(`oom_memcg=[^,]*${containerId}`).test(text)) return true;
    }
    return false;
  } finally {
    closeSync(descriptor);
  }
}
