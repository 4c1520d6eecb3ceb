// The artifacts of a completed remote task, kept in the artifact store as the task's artifacts: each part holds
// exactly one of text, raw (base64), data (JSON) or url (downloaded only from the card URL's origin), and at most
// 16 MiB. A part is kept under `a2a/<artifactId>/<filename>`, or `<artifactId>-<index>.<extension>` without a filename.
import { EffectFailure, isJsonObject, type CollectedFile, type FileService, type JsonObject } from '@agentctl/sdk';
import type { PeerConnection } from './connection.js';

/** The largest part kept, as the reference bounds it. */
export const MAX_PART_BYTES = 16 * 1024 * 1024;

const CONTENT = ['text', 'raw', 'data', 'url'] as const;

export async function keepArtifacts(task: JsonObject, connection: PeerConnection, files: FileService, peer: string): Promise<CollectedFile[]> {
  const artifacts = Array.isArray(task.artifacts) ? task.artifacts : [];
  const kept: CollectedFile[] = [];
  for (const [position, artifact] of artifacts.entries()) {
    if (!isJsonObject(artifact)) throw invalid(peer, `artifact ${position} is not an object`);
    const artifactId = safeName(typeof artifact.artifactId === 'string' ? artifact.artifactId : '') || `artifact-${position}`;
    if (!Array.isArray(artifact.parts)) throw invalid(peer, `artifact ${artifactId} has no parts`);
    for (const [index, part] of artifact.parts.entries()) {
      if (!isJsonObject(part)) throw invalid(peer, `artifact ${artifactId} part ${index} is not an object`);
      const present = CONTENT.filter((field) => part[field] !== undefined);
      if (present.length !== 1) throw invalid(peer, `artifact ${artifactId} part ${index} must hold exactly one of text, raw, data or url`);
      const bytes = await partBytes(part, present[0]!, connection, `${artifactId} part ${index}`, peer);
      if (bytes.length > MAX_PART_BYTES) throw invalid(peer, `artifact ${artifactId} part ${index} is larger than ${MAX_PART_BYTES} bytes`);
      const filename = typeof part.filename === 'string' && safeName(part.filename) !== '' ? safeName(part.filename) : `${artifactId}-${index}.${extension(present[0]!, part)}`;
      kept.push(await files.keep(`a2a/${artifactId}/${filename}`, bytes));
    }
  }
  return kept;
}

async function partBytes(part: JsonObject, field: (typeof CONTENT)[number], connection: PeerConnection, which: string, peer: string): Promise<Buffer> {
  const value = part[field];
  if (field === 'text') {
    if (typeof value !== 'string') throw invalid(peer, `${which}: text is not a string`);
    return Buffer.from(value, 'utf8');
  }
  if (field === 'raw') {
    if (typeof value !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(value) || value.length % 4 !== 0) throw invalid(peer, `${which}: raw is not base64`);
    return Buffer.from(value, 'base64');
  }
  if (field === 'data') return Buffer.from(JSON.stringify(value), 'utf8');
  if (typeof value !== 'string') throw invalid(peer, `${which}: url is not a string`);
  try {
    return await connection.fetch(value, MAX_PART_BYTES);
  } catch (error) {
    if ((error as { code?: string }).code === 'AGENTCTL_E_NETWORK_RESPONSE_TOO_LARGE') throw invalid(peer, `${which}: the download is larger than ${MAX_PART_BYTES} bytes`);
    throw error;
  }
}

/** A name of letters, digits, `.`, `-` and `_` only: the last component of what the peer named. */
function safeName(value: string): string {
  const last = value.split(/[/\\]/).at(-1) ?? '';
  const name = last.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 128);
  return name === '.' || name === '..' ? '' : name;
}

function extension(field: (typeof CONTENT)[number], part: JsonObject): string {
  if (field === 'data') return 'json';
  if (field === 'text') return part.mediaType === 'text/markdown' ? 'md' : 'txt';
  return 'bin';
}

function invalid(peer: string, problem: string): EffectFailure {
  return new EffectFailure('failed', 'AGENTCTL_E_A2A_ARTIFACT_INVALID', `A2A peer ${peer}: ${problem}`);
}
