// builtin.long_term_memory.write|read|search|promote: the workflow's long-term memory, through the service the host puts on
// the dispatch context. Every call is an effect whose result is recorded: a replay, or a resumed attempt, reads the
// record and never the store.
import { definePlugin, z, type JsonValue } from '@agentctl/sdk';
import { promoteKind } from './promote.js';
import { performing, recordOutput } from './records.js';
import { readInput, searchInput, writeInput } from './schemas.js';

const NAME = 'builtin.long_term_memory';
const VERSION = '0.1.0';
const HOST_RANGE = '^0.1.0';

export default definePlugin({
  name: NAME,
  version: VERSION,
  hostRange: HOST_RANGE,
  description: 'Long-term memory: write, read and search entries of the workflow namespace across runs, and promote one into working memory.',
  setup(api) {
    api.registerActionKind({
      name: `${NAME}.write`,
      description: 'Writes (or replaces) one entry of the workflow namespace: a versioned entry, a typed content block, or a value with optional text and metadata.',
      actionSchema: z.strictObject({}),
      inputSchema: writeInput,
      effect: { effectClass: 'external_mutate', risk: 'medium', idempotency: 'idempotent' },
      describe: () => ({ effects: [{ operation: 'long_term_memory.write', access: { tool: 'memory.write' } }] }),
      async dispatch(context) {
        const memory = context.longTermMemory;
        const { key, entry } = context.input;
        const input = { provider: memory.provider, namespace: memory.namespace, key, entry: entry as unknown as JsonValue };
        return context.effect({ operation: 'long_term_memory.write', input, access: { tool: 'memory.write' } }, (signal) =>
          performing(async () => {
            const record = await memory.write(key, entry, signal);
            return { status: 'changed', changed: true, namespace: record.namespace, key: record.key, createdAt: record.createdAt, updatedAt: record.updatedAt, expiresAt: record.expiresAt };
          }),
        );
      },
    });
    api.registerActionKind({
      name: `${NAME}.read`,
      description: 'Reads one unexpired entry of the workflow namespace by key; `value` is null when there is none.',
      actionSchema: z.strictObject({}),
      inputSchema: readInput,
      effect: { effectClass: 'observe', risk: 'low', idempotency: 'idempotent' },
      describe: () => ({ effects: [{ operation: 'long_term_memory.read', access: { tool: 'memory.read' } }] }),
      async dispatch(context) {
        const memory = context.longTermMemory;
        const { key } = context.input;
        return context.effect({ operation: 'long_term_memory.read', input: { provider: memory.provider, namespace: memory.namespace, key }, access: { tool: 'memory.read' } }, () =>
          performing(async () => {
            const record = await memory.read(key);
            return record
              ? { status: 'unchanged', changed: false, found: true, namespace: memory.namespace, ...recordOutput(record) }
              : { status: 'unchanged', changed: false, found: false, namespace: memory.namespace, key, value: null, entry: null, createdAt: null, updatedAt: null, expiresAt: null };
          }),
        );
      },
    });
    api.registerActionKind({
      name: `${NAME}.search`,
      description: 'Searches the workflow namespace by text, vector or hybrid score (1..100 results, best first, ties by key), with exact metadata filters.',
      actionSchema: z.strictObject({}),
      inputSchema: searchInput,
      effect: { effectClass: 'observe', risk: 'low', idempotency: 'idempotent' },
      describe: () => ({ effects: [{ operation: 'long_term_memory.search', access: { tool: 'memory.search' } }] }),
      async dispatch(context) {
        const memory = context.longTermMemory;
        const { query, mode, limit, filters } = context.input;
        const input = { provider: memory.provider, namespace: memory.namespace, query, mode, limit, filters: filters as JsonValue, embedding: memory.embedding as unknown as JsonValue };
        return context.effect({ operation: 'long_term_memory.search', input, access: { tool: 'memory.search' } }, (signal) =>
          performing(async () => {
            const hits = await memory.search({ text: query, mode, limit, filters: filters as Record<string, JsonValue> }, signal);
            const results = hits.map((hit) => ({ ...recordOutput(hit), score: hit.score }));
            return { status: 'unchanged', changed: false, namespace: memory.namespace, query, mode, count: results.length, results };
          }),
        );
      },
    });
    api.registerActionKind(promoteKind);
  },
});
