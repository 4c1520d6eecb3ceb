// builtin.memory: the working-memory kinds. builtin.memory.read outputs a key's value from the task's snapshot;
// builtin.memory.write records one key in the task's delta, as one internal_state effect, with the reference
// implementation's output `{status, changed, before, after, key}`. The delta commits with the task's success.
import { AgentctlError, definePlugin, type ActionKind, type JsonValue } from '@agentctl/sdk';
import { isDeepStrictEqual } from 'node:util';
import { memoryActionSchema, memoryReadInputSchema, memoryWriteInputSchema, readKeys, writtenKeys } from './schema.js';

const PROFILE = { effectClass: 'internal_state', risk: 'low' } as const;

const readKind: ActionKind<typeof memoryActionSchema, typeof memoryReadInputSchema> = {
  name: 'builtin.memory.read',
  description: "Outputs {status: unchanged, changed: false, value} with the value of `key` in the run's working memory, as the task's snapshot holds it.",
  actionSchema: memoryActionSchema,
  inputSchema: memoryReadInputSchema,
  effect: { ...PROFILE, idempotency: 'pure' },
  memoryReads: (_action, input) => readKeys(input),
  async dispatch({ input, memory }) {
    const value = memory.get(input.key);
    if (value === undefined) throw new AgentctlError('AGENTCTL_E_MEMORY_KEY_MISSING', `working memory has no key "${input.key}"`);
    return { status: 'unchanged', changed: false, value };
  },
};

const writeKind: ActionKind<typeof memoryActionSchema, typeof memoryWriteInputSchema> = {
  name: 'builtin.memory.write',
  description: "Sets `key` to `value` in the run's working memory (committed with the task's success); outputs {status, changed, before, after, key}.",
  actionSchema: memoryActionSchema,
  inputSchema: memoryWriteInputSchema,
  effect: { ...PROFILE, idempotency: 'keyed' },
  memoryWrites: (_action, input) => writtenKeys(input),
  describe: () => ({ effects: [{ operation: 'memory.write', access: { tool: 'memory.write' } }] }),
  async dispatch({ input, memory, effect }) {
    const { key } = input;
    const value = input.value as JsonValue;
    const before = memory.has(key) ? memory.get(key)! : null;
    const changed = !memory.has(key) || !isDeepStrictEqual(before, value);
    // Set first: a key outside the task's write set or a value too large fails before any effect is recorded, and a
    // resumed task (whose confirmed effect returns its recorded result without `perform`) still writes its delta.
    memory.set(key, value);
    return effect({ operation: 'memory.write', input: { key, value }, access: { tool: 'memory.write' } }, async () => ({ status: changed ? 'changed' : 'unchanged', changed, before, after: value, key }));
  },
};

export default definePlugin({
  name: 'builtin.memory',
  version: '0.1.0',
  hostRange: '^0.1.0',
  description: "The run's working memory: builtin.memory.read and builtin.memory.write.",
  setup(api) {
    api.registerActionKind(readKind);
    api.registerActionKind(writeKind);
  },
});
