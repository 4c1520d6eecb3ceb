// Where `plan --emit` and `report` write: an --out folder or file checked before anything is written, emitted paths
// that stay inside the folder, and every file written atomically (docs/cli.md#plan, docs/cli.md#report).
import { createHash } from 'node:crypto';
import { mkdirSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { AgentctlError, type EmittedFile } from '@agentctl/sdk';
import { writeAtomically } from '../files/atomic-write.js';

/** What a written file is in the command's document: its path, size and digest. */
export interface WrittenFile {
  readonly path: string;
  readonly bytes: number;
  readonly sha256: string;
}

const bytesOf = (content: string | Uint8Array): Uint8Array => (typeof content === 'string' ? Buffer.from(content) : content);
const kindOf = (path: string) => {
  try {
    return statSync(path).isDirectory() ? 'folder' : 'file';
  } catch {
    return 'none';
  }
};

/** A format nobody registered: the registered ones, so the user can pick. */
export function unknownFormat(option: string, format: string, known: readonly string[], what: string): AgentctlError {
  return new AgentctlError('AGENTCTL_E_FORMAT_UNKNOWN', `${option} ${format}: no ${what} has this format`, { help: `registered formats: ${known.join(', ') || 'none'}; a pack in the project config can register more` });
}

const outputPath = (message: string, help: string) => new AgentctlError('AGENTCTL_E_OUTPUT_PATH', message, { help });

/** Checks every emitted path, then writes them under `folder` (created when missing). Nothing is written if one is refused. */
export function writeEmitted(folder: string, files: readonly EmittedFile[], format: string): WrittenFile[] {
  const root = resolve(folder);
  if (kindOf(root) === 'file') throw outputPath(`--out ${folder} is a file; plan --emit writes a folder of files`, 'name a folder (it is created when missing)');
  const seen = new Set<string>();
  const checked = files.map((file) => {
    const path = typeof file?.path === 'string' ? file.path : '';
    const parts = path.split(/[\\/]/);
    const refuse = (why: string) =>
      new AgentctlError('AGENTCTL_E_EMIT_PATH', `plan emitter ${format} returned the path ${JSON.stringify(path)}: ${why}`, { help: `this is a bug in the emitter ${format}; report it to its plugin` });
    if (path === '' || isAbsolute(path) || parts.some((part) => part === '..' || part === '' || part === '.') || path.includes('\0')) throw refuse('an emitted path is relative to --out, without empty, `.` or `..` segments');
    if (seen.has(path)) throw refuse('it is returned twice');
    seen.add(path);
    if (typeof file.content !== 'string' && !(file.content instanceof Uint8Array)) throw refuse('its content is neither text nor bytes');
    return { path, target: join(root, ...parts), content: bytesOf(file.content) };
  });
  try {
    mkdirSync(root, { recursive: true });
    const real = realpathSync(root);
    for (const file of checked) {
      mkdirSync(dirname(file.target), { recursive: true });
      // A symbolic link inside --out must not carry a file outside it.
      const parent = realpathSync(dirname(file.target));
      if (parent !== real && !parent.startsWith(`${real}${sep}`)) throw outputPath(`${file.path} would be written outside --out ${folder} (through ${relative(root, dirname(file.target))}, a link)`, 'remove the link from the --out folder or choose another folder');
      if (kindOf(file.target) === 'folder') throw outputPath(`${file.path} under --out ${folder} is a folder`, 'remove it or choose another folder');
    }
    for (const file of checked) writeAtomically(file.target, file.content);
  } catch (error) {
    if (error instanceof AgentctlError) throw error;
    throw outputPath(`cannot write under --out ${folder}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, 'name a folder agentctl can create and write');
  }
  return checked.map((file) => written(file.path, file.content));
}

/** Writes a report to `file`, atomically; a folder or a missing parent folder is refused. */
export function writeReport(file: string, content: string | Uint8Array): WrittenFile {
  const target = resolve(file);
  if (kindOf(target) === 'folder') throw outputPath(`--out ${file} is a folder; report writes one file`, 'name a file, e.g. --out report.md');
  if (kindOf(dirname(target)) !== 'folder') throw outputPath(`--out ${file}: the folder ${dirname(target)} does not exist`, 'create the folder first, or name a file in an existing one');
  const bytes = bytesOf(content);
  try {
    writeAtomically(target, bytes);
  } catch (error) {
    throw outputPath(`cannot write --out ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, 'name a file in a folder agentctl can write');
  }
  return written(file, bytes);
}

export function written(path: string, content: string | Uint8Array): WrittenFile {
  const bytes = bytesOf(content);
  return { path, bytes: bytes.length, sha256: `sha256:${createHash('sha256').update(bytes).digest('hex')}` };
}
