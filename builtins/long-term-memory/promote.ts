// builtin.long_term_memory.promote: writes one value into the run's working memory as one recorded internal_state
// effect. The value is given (`value`), or read from the workflow namespace (`from`) inside the effect, so a resumed
// attempt takes the recorded value and never asks the store again; the write joins the task's delta like a
// builtin.memory.write and commits with the task's success.
import { EffectFailure, z, type ActionKind, type JsonValue, type MemoryWriteKeys } from '@agentctl/sdk';
import { isDeepStrictEqual } from 'node:util';
import { performing, valueOf } from './records.js';
import { promoteInput } from './schemas.js';

const actionSchema = z.strictObject({});
const ACCESS = { tool: 'memory.promote' } as const;
const OPERATION = 'long_term_memory.promote';

/** The literal `key` of a raw `with`, or `dynamic` when it is a template: the compiler's write set for the task. */
function promotedKeys(input: unknown): MemoryWriteKeys {
  const key = input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as { key?: unknown }).key : undefined;
  if (typeof key !== 'string' || key === '') return { keys: [] };
  return /\$\{\{/.test(key) ? { keys: [], dynamic: true } : { keys: [key] };
}

/** The output of a promotion, the reference's `{status, changed, before, after, key}`. */
function promotion(key: string, before: JsonValue | undefined, after: JsonValue) {
  const changed = before === undefined || !isDeepStrictEqual(before, after);
  return { status: changed ? 'changed' : 'unchanged', changed, before: before ?? null, after, key };
}

export const promoteKind: ActionKind<typeof actionSchema, typeof promoteInput> = {
  name: 'builtin.long_term_memory.promote',
  description: 'Writes `value`, or the value of the long-term entry `from`, into working-memory `key` as one recorded effect; outputs {status, changed, before, after, key}.',
  actionSchema,
  inputSchema: promoteInput,
  effect: { effectClass: 'internal_state', risk: 'low', idempotency: 'keyed' },
  memoryWrites: (_action, input) => promotedKeys(input),
  describe: () => ({ effects: [{ operation: OPERATION, access: ACCESS }] }),
  async dispatch({ input, memory, longTermMemory, effect }) {
    const { key, from } = input;
    const before = memory.get(key);
    if (from === undefined) {
      const value = (input.value ?? null) as JsonValue;
      // Set first: an undeclared key or a value over the limit fails before any effect is recorded.
      memory.set(key, value);
      return effect({ operation: OPERATION, input: { key, value }, access: ACCESS }, async () => promotion(key, before, value));
    }
    // The value is only known once the entry is read, so the write set is checked with the value the key holds now,
    // and the recorded value (fresh or from the ledger) is what the task's delta keeps.
    memory.set(key, before ?? null);
    const { provider, namespace } = longTermMemory;
    const result = await effect({ operation: OPERATION, input: { key, from, provider, namespace }, access: ACCESS }, () =>
      performing(async () => {
        const record = await longTermMemory.read(from);
        if (!record) throw new EffectFailure('failed', 'AGENTCTL_E_MEMORY_ENTRY_NOT_FOUND', `long-term memory namespace "${namespace}" has no unexpired entry "${from}" to promote`);
        return { ...promotion(key, before, valueOf(record)), source: { namespace, key: from, updatedAt: record.updatedAt, expiresAt: record.expiresAt } };
      }),
    );
    memory.set(key, result.after);
    return result;
  },
};
