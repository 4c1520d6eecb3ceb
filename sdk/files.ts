// The host's file service: how an action kind reads and writes workspace files. The host confines every access to the
// roots policy uses, at the moment of the system call, so a path that policy allowed cannot be redirected by a
// symbolic link swapped in afterwards.
import { EffectFailure } from './errors.js';

/** Options of `FileService.read`. */
export interface FileReadOptions {
  /** A larger file fails with AGENTCTL_E_FILE_TOO_LARGE; at most this many bytes are ever read. */
  readonly maxBytes: number;
}

/** A file a task produced, kept in the artifact store: where it is below the workspace root, and its bytes' digest. */
export interface CollectedFile {
  /** Relative to the workspace root, links resolved: the path the artifact is recorded under. */
  readonly path: string;
  /** `sha256:<64 hex>` of the bytes kept. */
  readonly digest: string;
  readonly size: number;
}

/**
 * Workspace files as one dispatch sees them. Paths are as written in the workflow: relative to the workspace root, or
 * absolute inside it. Every failure is an `EffectFailure` with outcome `failed` (nothing was changed):
 * AGENTCTL_E_POLICY_PATH_ESCAPE (a `..` component, or a path or symbolic link leading out of the workspace root),
 * AGENTCTL_E_POLICY_NOT_WRITABLE (a write that would land outside every writable root), AGENTCTL_E_FILE_READ,
 * AGENTCTL_E_FILE_TOO_LARGE, AGENTCTL_E_FILE_WRITE, AGENTCTL_E_ARTIFACT_MISSING. A path ending in `/` names a directory
 * and is refused by all of them.
 */
export interface FileService {
  /**
   * The bytes of a regular file inside the workspace root. Symbolic links are followed as long as every step stays
   * inside the root; nothing outside it is ever opened.
   */
  read(path: string, options: FileReadOptions): Promise<Buffer>;
  /**
   * Whether the write target already holds exactly `bytes`: false when it does not exist. Checked like a write (below a
   * writable root); a target that exists and is not a regular file, or is a symbolic link, is refused.
   */
  contentEquals(path: string, bytes: Uint8Array): Promise<boolean>;
  /**
   * Replaces or creates a file below a writable root atomically: a temporary file in the same folder, fsync, rename,
   * fsync of the folder. Missing folders are created. An existing file keeps its permission bits; a new one is
   * created with 0644 minus the process umask. The target itself is never a symbolic link.
   */
  writeAtomic(path: string, bytes: Uint8Array): Promise<void>;
  /**
   * Keeps a file that something else wrote (a process the task ran) in the artifact store and records it as the
   * task's artifact. The file must be a regular file (not a symbolic link) in a folder below a writable root, as a
   * write would be: a task can only declare as its output what it was allowed to write. A missing file is
   * AGENTCTL_E_ARTIFACT_MISSING; one larger than `maxBytes` is AGENTCTL_E_FILE_TOO_LARGE.
   */
  collect(path: string, options: FileReadOptions): Promise<CollectedFile>;
  /**
   * Keeps bytes the task received (not a workspace file: e.g. a remote agent's artifact) in the artifact store and
   * records them as the task's artifact under `name`, a relative path of plain components that is never written to
   * the workspace. A name that is not one is AGENTCTL_E_FILE_WRITE.
   */
  keep(name: string, bytes: Uint8Array): Promise<CollectedFile>;
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The text of bytes read from `path`, which must be valid UTF-8: anything else is an `EffectFailure` (`failed`,
 * AGENTCTL_E_FILE_ENCODING), never a lossy decoding with replacement characters. A byte-order mark is kept as text.
 */
export function utf8Text(bytes: Uint8Array, path: string): string {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    throw new EffectFailure('failed', 'AGENTCTL_E_FILE_ENCODING', `${path} is not valid UTF-8 text; it is not read`);
  }
}
