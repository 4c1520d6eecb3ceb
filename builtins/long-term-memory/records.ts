// What the long-term memory kinds share: how a store failure becomes the effect's failure, and how a record is output.
import { EffectFailure, isAgentctlError, type JsonValue, type MemoryRecord } from '@agentctl/sdk';

/** A store or contract failure is the effect's definite failure, with its own code (never `uncertain`: nothing half-happened). */
export async function performing<T>(body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    if (isAgentctlError(error) && !(error instanceof EffectFailure)) throw new EffectFailure('failed', error.code, error.message, { diagnostics: error.diagnostics });
    throw error;
  }
}

/** The value a read returns: a text entry's text, a JSON entry's value. */
export const valueOf = (record: MemoryRecord): JsonValue => (record.entry.content.type === 'text' ? record.entry.content.text : record.entry.content.value);

/** A record as the kinds output it. */
export const recordOutput = (record: MemoryRecord) => ({
  key: record.key,
  value: valueOf(record),
  entry: record.entry as unknown as JsonValue,
  createdAt: record.createdAt,
  updatedAt: record.updatedAt,
  expiresAt: record.expiresAt,
});
