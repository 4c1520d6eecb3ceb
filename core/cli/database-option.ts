// The options every ledger command shares: --db (its default and checks) and --timeout-seconds.
import { AgentctlError } from '@agentctl/sdk';
import { DEFAULT_DB } from '../config/settings.js';

export { DEFAULT_DB };

/** The --db value, checked: it names a file, never SQLite's in-memory or temporary database (SPEC §7). */
export function databasePath(value: unknown): string {
  // The option has no yargs default: yargs would give a bare --db the default instead of the empty value it is.
  if (value === undefined) return DEFAULT_DB;
  const usage = (message: string) => new AgentctlError('AGENTCTL_E_USAGE', message, { help: `name the database file, e.g. --db ${DEFAULT_DB} (the default)` });
  if (Array.isArray(value)) throw usage(`--db was given ${value.length} times; give it once`);
  // A bare --db arrives as "". SQLite would open "" (and "   ", which better-sqlite3 trims) as a temporary database.
  if (typeof value !== 'string' || value.trim() === '') throw usage('--db needs a file path');
  if (value === ':memory:') throw usage('--db :memory: is not allowed: the ledger must outlive the process');
  if (value !== value.trim()) throw usage(`--db "${value}" begins or ends with white space`);
  if (value.includes('\0')) throw usage('--db contains a NUL byte');
  return value;
}

/** The yargs definition of --db: no yargs default (see `databasePath`), the default shown in help. */
export const dbOption = (describe = 'SQLite database file') => ({ type: 'string', defaultDescription: DEFAULT_DB, describe }) as const;

/** The --timeout-seconds value, checked: more than 0 and at most a day. */
export function timeoutSeconds(value: number | undefined): number | undefined {
  if (value !== undefined && (!Number.isFinite(value) || value <= 0 || value > 86400)) {
    throw new AgentctlError('AGENTCTL_E_USAGE', `--timeout-seconds must be more than 0 and at most 86400, got ${value}`);
  }
  return value;
}
