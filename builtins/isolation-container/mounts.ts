// The tmpfs mounts of a container. The only writable place it gets is its /tmp; every other place an engine would
// make writable on its own is covered by a read-only, noexec tmpfs instead:
// - each VOLUME the image declares: Docker and Podman would mount an anonymous volume there, writable and executable,
//   on the engine's disk and without a size limit, even with a read-only root. The cover is empty: what the image
//   holds at that path is not visible (Docker cannot copy it into a tmpfs, and both engines must behave alike).
// - under Podman, /var/tmp and /run: in read-only mode Podman mounts a writable tmpfs on each (its `--read-only-tmpfs`
//   default, which its Docker-compatible API cannot turn off); a mount of our own at the same place replaces it.
//   `tmpcopyup` keeps what the image holds there visible, as Docker shows it from the read-only root.
// - /dev/mqueue, which both engines mount writable for the container's IPC namespace. (/dev/shm is not mounted at
//   all: the container's IPC mode is `none`, see container.ts.)
import { posix } from 'node:path';
import type { EngineName } from './address.js';

/** The /tmp every container gets: writable by anyone (uid 65532 included), nothing executable, 16 MiB. */
export const TMPFS_OPTIONS = 'rw,noexec,nosuid,nodev,size=16m,mode=1777';
/** Over a declared volume: empty, read-only, nothing executable. */
export const VOLUME_COVER_OPTIONS = 'ro,noexec,nosuid,nodev,size=4k,mode=0755';
/** Over Podman's read-only-mode tmpfs mounts: the image's content, read-only, nothing executable. */
export const PODMAN_COVER_OPTIONS = 'ro,noexec,nosuid,nodev,size=16m,tmpcopyup';
/** Where Podman mounts a writable tmpfs of its own when the root is read-only (/tmp is ours already). */
export const PODMAN_READ_ONLY_TMPFS = ['/var/tmp', '/run'] as const;
/** Over the message-queue file system both engines mount: empty, read-only (mq_open still works, bounded by the kernel). */
export const MQUEUE_COVER = ['/dev/mqueue', 'ro,noexec,nosuid,nodev,size=4k'] as const;
/** Where agentctl mounts something itself: a volume declared there is already covered. */
const OWN_MOUNTS = new Set(['/tmp', '/workspace']);

/** The image's declared volumes as absolute, normalized paths, sorted, without the places agentctl mounts itself. */
export function declaredVolumes(config: Record<string, unknown> | null | undefined): string[] {
  const paths = Object.keys(config ?? {}).map((path) => posix.normalize(posix.join('/', path)).replace(/(.)\/$/, '$1'));
  return [...new Set(paths)].filter((path) => !OWN_MOUNTS.has(path)).sort();
}

/** The `HostConfig.Tmpfs` of a container of an image with these declared volumes, on this engine. */
export function tmpfsMounts(engine: EngineName, volumes: readonly string[]): Record<string, string> {
  const mounts: Record<string, string> = { '/tmp': TMPFS_OPTIONS, [MQUEUE_COVER[0]]: MQUEUE_COVER[1] };
  if (engine === 'podman') for (const path of PODMAN_READ_ONLY_TMPFS) mounts[path] = PODMAN_COVER_OPTIONS;
  // A volume at /run or /var/tmp under Podman is covered empty, like every volume.
  for (const path of volumes) mounts[path] = VOLUME_COVER_OPTIONS;
  return mounts;
}
