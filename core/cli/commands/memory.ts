// `memory get|put|search|reindex`: the long-term memory of the state database (the `sqlite` store), by namespace.
// A command has no workflow: it embeds with `local_hash`, at the dimensions the namespace was written with, except
// `reindex --workflow FILE`, which re-embeds with that workflow's embedding.
import type { CommandModule } from 'yargs';
import { AgentctlError, MEMORY_LIMITS, type JsonValue, type MemoryEmbedder, type MemoryRecord, type MemorySearchMode } from '@agentctl/sdk';
import { checkEntry, checkName, checkQuery, entryFromValue, entryValue, searchableText } from '../../memory/entry.js';
import { localHashEmbedder } from '../../memory/local-hash.js';
import { DEFAULT_LONG_TERM_MEMORY } from '../../memory/service.js';
import { SqliteMemoryStore } from '../../memory/sqlite-store.js';
import { handler, packOptions, type GlobalArgs } from '../handler.js';
import type { Compose } from '../composition.js';
import { workflowEmbedder } from '../memory-embedding.js';
import { emit, neutralize } from '../output.js';
import { databasePath, dbOption } from '../database-option.js';

interface NamespaceArgs extends GlobalArgs {
  db?: string;
  namespace: string;
}

interface KeyArgs extends NamespaceArgs {
  key: string;
}

interface PutArgs extends KeyArgs {
  value: string;
  text?: string;
  metadata?: string;
  'retention-days'?: number;
}

interface SearchArgs extends NamespaceArgs {
  query: string;
  mode: MemorySearchMode;
  limit: number;
  filter?: string[];
}

const DAY_MS = 86_400_000;
const usage = (message: string, help?: string) => new AgentctlError('AGENTCTL_E_USAGE', message, help ? { help } : {});

/** A command-line value: JSON when it parses as JSON, else the text itself. */
function jsonOrText(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

function metadataOption(text: string | undefined): Record<string, JsonValue> {
  if (text === undefined) return {};
  const parsed = jsonOrText(text);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw usage(`--metadata must be a JSON object, got ${text}`, `e.g. --metadata '{"topic":"billing"}'`);
  return parsed;
}

function filterOptions(pairs: readonly string[] = []): Record<string, JsonValue> {
  const filters: Record<string, JsonValue> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at < 0) throw usage(`--filter takes KEY=JSON, got ${pair}`, 'e.g. --filter topic=\'"billing"\' (a value that is not JSON is taken as text)');
    filters[pair.slice(0, at)] = jsonOrText(pair.slice(at + 1));
  }
  return filters;
}

/** The `local_hash` embedder of the namespace's own dimensions (64 for a namespace without vectors). */
function namespaceEmbedder(store: SqliteMemoryStore, namespace: string, now: string): MemoryEmbedder {
  const found = store.embeddings(namespace, now).find((identity) => identity.provider === 'local_hash');
  return localHashEmbedder(found?.dimensions ?? DEFAULT_LONG_TERM_MEMORY.embedding.dimensions);
}

async function withMemory<T>(argv: NamespaceArgs, options: { create: boolean; readonly: boolean }, body: (store: SqliteMemoryStore) => Promise<T>): Promise<T> {
  const store = SqliteMemoryStore.open({ databasePath: databasePath(argv.db), create: options.create, ...(argv.stateKeys ? { stateKeys: argv.stateKeys } : {}) }, options.readonly);
  try {
    return await body(store);
  } finally {
    store.close();
  }
}

/** A record as the commands print it. */
const recordDocument = (record: MemoryRecord) => ({ ...record, value: entryValue(record.entry), text: searchableText(record.entry) });

const namespacePositional = { type: 'string', demandOption: true, describe: 'the memory namespace' } as const;

const get: CommandModule<GlobalArgs, KeyArgs> = {
  command: 'get <namespace> <key>',
  describe: 'Print one unexpired entry (found: false and value null when there is none)',
  builder: (yargs) => yargs.positional('namespace', namespacePositional).positional('key', { type: 'string', demandOption: true, describe: 'the entry key' }).option('db', dbOption()) as never,
  handler: handler<KeyArgs>(async (argv, output) => {
    checkName('namespace', argv.namespace);
    checkName('key', argv.key);
    return withMemory(argv, { create: false, readonly: true }, async (store) => {
      const record = store.get(argv.namespace, argv.key, new Date().toISOString());
      const data = record ? { found: true, ...recordDocument(record) } : { found: false, namespace: argv.namespace, key: argv.key, value: null };
      emit(output, 'MemoryEntry', data, () => (record ? neutralize(JSON.stringify(entryValue(record.entry))) : `no entry ${neutralize(argv.namespace)}/${neutralize(argv.key)}`));
      return 0;
    });
  }),
};

const put: CommandModule<GlobalArgs, PutArgs> = {
  command: 'put <namespace> <key> <value>',
  describe: 'Write (or replace) one entry; VALUE is JSON when it parses as JSON, else text',
  builder: (yargs) =>
    yargs
      .positional('namespace', namespacePositional)
      .positional('key', { type: 'string', demandOption: true, describe: 'the entry key' })
      .positional('value', { type: 'string', demandOption: true, describe: 'the value: JSON, or text' })
      .option('text', { type: 'string', describe: 'the searchable text (default: the value, as text)' })
      .option('metadata', { type: 'string', describe: 'a JSON object of exact-match metadata' })
      .option('retention-days', { type: 'number', describe: `days the entry is kept (1 through ${MEMORY_LIMITS.maxRetentionDays}); default: until replaced` })
      .option('db', dbOption()) as never,
  handler: handler<PutArgs>(async (argv, output) => {
    const days = argv['retention-days'];
    if (days !== undefined && (!Number.isInteger(days) || days < 1 || days > MEMORY_LIMITS.maxRetentionDays)) throw usage(`--retention-days must be a whole number from 1 through ${MEMORY_LIMITS.maxRetentionDays}, got ${String(days)}`);
    checkName('namespace', argv.namespace);
    checkName('key', argv.key);
    const entry = entryFromValue(jsonOrText(argv.value), argv.text, metadataOption(argv.metadata));
    checkEntry(entry);
    return withMemory(argv, { create: true, readonly: false }, async (store) => {
      const now = new Date();
      const embedder = namespaceEmbedder(store, argv.namespace, now.toISOString());
      const text = searchableText(entry);
      const vector = text === null ? null : { identity: embedder.identity, values: (await embedder.embed([text]))[0]! };
      const expiresAt = days === undefined ? null : new Date(now.getTime() + days * DAY_MS).toISOString();
      const record = store.put({ namespace: argv.namespace, key: argv.key, entry, expiresAt, vector }, now.toISOString());
      emit(output, 'MemoryWrite', { written: true, ...recordDocument(record) }, () => `wrote ${neutralize(argv.namespace)}/${neutralize(argv.key)}${expiresAt ? ` (expires ${expiresAt})` : ''}`);
      return 0;
    });
  }),
};

const search: CommandModule<GlobalArgs, SearchArgs> = {
  command: 'search <namespace> <query>',
  describe: 'Rank the namespace\'s unexpired entries by text, vector or hybrid score (ties by key)',
  builder: (yargs) =>
    yargs
      .positional('namespace', namespacePositional)
      .positional('query', { type: 'string', demandOption: true, describe: 'the query text (at most 64 KiB)' })
      .option('mode', { choices: ['text', 'vector', 'hybrid'] as const, default: 'text' as const, describe: 'how entries are scored' })
      .option('limit', { type: 'number', default: 10, describe: `results, 1 through ${MEMORY_LIMITS.maxResults}` })
      .option('filter', { type: 'string', array: true, describe: 'KEY=JSON: only entries whose metadata KEY equals the value (repeatable)' })
      .option('db', dbOption()) as never,
  handler: handler<SearchArgs>(async (argv, output) => {
    const query = { namespace: argv.namespace, text: argv.query, mode: argv.mode, limit: argv.limit, filters: filterOptions(argv.filter) };
    checkQuery(query);
    return withMemory(argv, { create: false, readonly: true }, async (store) => {
      const now = new Date().toISOString();
      const embedder = query.mode === 'text' ? undefined : namespaceEmbedder(store, argv.namespace, now);
      const vector = embedder ? { identity: embedder.identity, values: (await embedder.embed([query.text]))[0]! } : null;
      const results = store.search(query, vector, now).map((hit) => recordDocument(hit) as ReturnType<typeof recordDocument> & { score: number });
      emit(output, 'MemorySearch', { namespace: argv.namespace, query: argv.query, mode: argv.mode, limit: argv.limit, count: results.length, results }, () =>
        results.map((hit) => `${hit.score.toFixed(4)}  ${neutralize(hit.key)}  ${neutralize(JSON.stringify(hit.value)).slice(0, 80)}`).join('\n') || 'no results',
      );
      return 0;
    });
  }),
};

interface ReindexArgs extends NamespaceArgs {
  workflow?: string;
}

const reindex = (compose: Compose): CommandModule<GlobalArgs, ReindexArgs> => ({
  command: 'reindex <namespace>',
  describe: "Embed every unexpired entry of the namespace again (local_hash at the namespace's dimensions, or a workflow's embedding)",
  builder: (yargs) =>
    yargs
      .positional('namespace', namespacePositional)
      .option('workflow', { type: 'string', describe: "re-embed with this workflow's spec.memory.longTerm.embedding (a provider entry's credential and network policy are checked first)" })
      .option('db', dbOption()) as never,
  handler: handler<ReindexArgs>(async (argv, output) => {
    checkName('namespace', argv.namespace);
    const chosen = argv.workflow === undefined ? undefined : await workflowEmbedder(compose, argv.workflow, packOptions(argv), new AbortController().signal);
    return withMemory(argv, { create: false, readonly: false }, async (store) => {
      const now = new Date().toISOString();
      const embedder = chosen?.embedder ?? namespaceEmbedder(store, argv.namespace, now);
      const reindexed = await store.reindex(argv.namespace, embedder, now);
      const { provider, model, dimensions } = embedder.identity;
      emit(output, 'MemoryReindex', { namespace: argv.namespace, reindexed, embedding: embedder.identity }, () => `re-embedded ${reindexed} entr${reindexed === 1 ? 'y' : 'ies'} of ${neutralize(argv.namespace)} (${neutralize(provider)}${model === null ? '' : `/${neutralize(model)}`}, ${dimensions} dimensions)`);
      return 0;
    });
  }),
});

export const memoryCommand = (compose: Compose): CommandModule<GlobalArgs, GlobalArgs> => ({
  command: 'memory',
  describe: 'Read, write, search or re-embed namespaced long-term memory',
  builder: (yargs) => yargs.command(get).command(put).command(search).command(reindex(compose)).demandCommand(1, 'name a memory subcommand: get, put, search, reindex') as never,
  handler: () => undefined,
});
