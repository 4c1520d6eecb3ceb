// A task's artifacts in the shapes the reference prints them: its references (`inspect`'s `artifacts`) and its
// manifest (each task's `artifactManifest`). agentctl records no media type: it is the file extension's.
import { basename, extname } from 'node:path';
import type { Row } from './rows.js';

const MEDIA_TYPES: Readonly<Record<string, string>> = {
  '.json': 'application/json',
  '.txt': 'text/plain',
  '.log': 'text/plain',
  '.md': 'text/markdown',
  '.csv': 'text/csv',
  '.html': 'text/html',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.xml': 'application/xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.svg': 'image/svg+xml',
  '.pdf': 'application/pdf',
  '.gz': 'application/gzip',
  '.tar': 'application/x-tar',
  '.zip': 'application/zip',
};

/** A file's media type from its extension (agentctl records none). */
export const mediaTypeOf = (path: string) => MEDIA_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';

/** A task's artifact as the reference's ArtifactReference, with its size. */
export function artifactReference(row: Row, sourceRunId: string | null) {
  const path = String(row.path);
  return {
    runId: row.run_id,
    taskId: row.task_id,
    logicalPath: path,
    logicalName: basename(path),
    mediaType: mediaTypeOf(path),
    digest: row.digest,
    sourceRunId,
    sourceTaskId: sourceRunId === null ? null : row.task_id,
    createdAt: row.created_at,
    sizeBytes: row.size,
  };
}

/** A task's artifact as the reference's ArtifactRecord (the task's `artifactManifest`). */
export function artifactManifestEntry(row: Row) {
  const path = String(row.path);
  const hex = String(row.digest).replace(/^sha256:/, '');
  return { path, digest: row.digest, sizeBytes: row.size, mediaType: mediaTypeOf(path), logicalName: basename(path), storePath: `sha256/${hex.slice(0, 2)}/${hex}` };
}
