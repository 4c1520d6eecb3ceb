// What opening a ledger would create, so a command that creates one and then fails before it recorded anything of its
// own can leave the disk as it found it.
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { artifactRoot } from '../store/artifacts.js';

/**
 * What opening `path` would create: its folder (the outermost one missing), else the database with its companions,
 * and the artifact store folder beside it when that is missing too. Empty when the database is already there.
 */
export function newStatePaths(path: string): string[] {
  let outermost: string | undefined;
  for (let folder = dirname(path); !existsSync(folder) && dirname(folder) !== folder; folder = dirname(folder)) outermost = folder;
  if (outermost !== undefined) return [outermost];
  if (existsSync(path)) return [];
  return [...['', '-wal', '-shm', '-journal'].map((suffix) => `${path}${suffix}`), ...(existsSync(artifactRoot(path)) ? [] : [artifactRoot(path)])];
}
