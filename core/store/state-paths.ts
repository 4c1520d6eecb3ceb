// The paths agentctl owns beside its database. Policy refuses them to every task (SPEC §7).
import { dirname, join, resolve } from 'node:path';
import { canonical } from '../policy/engine.js';

/** SQLite's companion files of a database, whatever its journal mode. */
const COMPANIONS = ['', '-wal', '-shm', '-journal'];

/**
 * The database, its companions and the artifact store (`artifacts/sha256/` beside the database, reserved even before
 * it exists), as absolute canonical paths. The rest of `artifacts/` is the workspace's: a task may write a report
 * there when policy lets it. Both the path as given and its real path count: SQLite follows a symlinked
 * database name to put its companions beside the real file.
 */
export function statePaths(databasePath: string): readonly string[] {
  const given = resolve(databasePath);
  const paths = new Set<string>();
  for (const base of new Set([given, canonical(given)])) {
    for (const suffix of COMPANIONS) paths.add(canonical(`${base}${suffix}`));
    paths.add(canonical(join(dirname(base), 'artifacts', 'sha256')));
  }
  return Object.freeze([...paths]);
}
