// Reading a JSON column of the ledger: a row that does not parse is a damaged ledger, never an internal error.
import { AgentctlError, errorMessage, type JsonValue } from '@agentctl/sdk';
import type { Row } from './rows.js';

/** A JSON column; a row that does not parse is a damaged ledger (exit 5), named by table, column and row. */
export function parser(runId: string) {
  return (table: string, column: string, row: Row, key: string | null = null): JsonValue => {
    const text = row[column];
    if (text === null || text === undefined) return null;
    try {
      return JSON.parse(String(text)) as JsonValue;
    } catch (error) {
      const which = key === null ? `run ${runId}` : `run ${runId}, ${key}`;
      throw new AgentctlError('AGENTCTL_E_DB_CORRUPT', `${table}.${column} of ${which} is not valid JSON (${errorMessage(error)}): the database holds a row agentctl did not write`, {
        help: 'restore the database from a backup; the other runs may still be read with `agentctl inspect`',
      });
    }
  };
}

/** What `parser` returns: reads one JSON column of one row. */
export type ColumnParser = ReturnType<typeof parser>;
