// The run's long-term memory service: the workflow's namespace in its store, opened on first use and closed with the
// task attempt. Writes are validated and embedded here, so every store receives only entries that keep the contract.
import { AgentctlError, type CompiledLongTermMemory, type LongTermMemoryService, type MemoryEmbedder, type MemoryEntry, type MemoryQuery, type MemoryStore, type MemoryStoreProvider } from '@agentctl/sdk';
import { checkEntry, checkName, checkQuery, searchableText } from './entry.js';
import { localHashEmbedder } from './local-hash.js';

const DAY_MS = 86_400_000;

/** What a workflow without `spec.memory.longTerm` uses: the `sqlite` store's `default` namespace, kept until replaced. */
export const DEFAULT_LONG_TERM_MEMORY: CompiledLongTermMemory = Object.freeze({ provider: 'sqlite', namespace: 'default', retentionDays: null, embedding: Object.freeze({ provider: 'local_hash', model: null, dimensions: 64 }) });

/** The embedder of compiled settings; only `local_hash` is computed in this version (the compiler refuses others). */
export function embedderFor(settings: CompiledLongTermMemory): MemoryEmbedder {
  if (settings.embedding.provider !== 'local_hash') {
    throw new AgentctlError('AGENTCTL_E_MEMORY_EMBEDDING_UNSUPPORTED', `embedding provider ${settings.embedding.provider} is not available in this version`, { help: 'use embedding: { provider: local_hash }' });
  }
  return localHashEmbedder(settings.embedding.dimensions);
}

/** A service and the close of the store it opened (nothing is opened until a method is called). */
export interface OpenedMemory {
  readonly service: LongTermMemoryService;
  close(): void;
}

/**
 * The service of `settings` in the store of the state database `database` (its file, and where its state key is read). `redact` replaces the run's secret values in an entry
 * before it is checked, embedded or stored, so no secret reaches the store even when a task's input holds one.
 */
export function longTermMemoryService(
  lookup: (provider: string) => MemoryStoreProvider | undefined,
  settings: CompiledLongTermMemory,
  database: { readonly path: string; readonly stateKeys: Readonly<Record<string, string>> },
  redact: <T>(value: T) => T = (value) => value,
  now: () => Date = () => new Date(),
): OpenedMemory {
  let store: MemoryStore | undefined;
  const open = (): MemoryStore => {
    if (store) return store;
    const provider = lookup(settings.provider);
    if (!provider) throw new AgentctlError('AGENTCTL_E_MEMORY_PROVIDER_UNKNOWN', `no plugin provides the long-term memory store ${settings.provider}`);
    return (store = provider.open({ databasePath: database.path, create: false, stateKeys: database.stateKeys }));
  };
  const { namespace } = settings;
  const service: LongTermMemoryService = Object.freeze({
    provider: settings.provider,
    namespace,
    retentionDays: settings.retentionDays,
    embedding: settings.embedding,
    async write(key: string, given: MemoryEntry, signal?: AbortSignal) {
      checkName('namespace', namespace);
      checkName('key', key);
      const entry = redact(given);
      checkEntry(entry);
      const text = searchableText(entry);
      const embedder = embedderFor(settings);
      const vector = text === null ? null : { identity: embedder.identity, values: (await embedder.embed([text], signal))[0]! };
      const at = now();
      const expiresAt = settings.retentionDays === null ? null : new Date(at.getTime() + settings.retentionDays * DAY_MS).toISOString();
      return open().put({ namespace, key: redact(key), entry, expiresAt, vector }, at.toISOString());
    },
    async read(key: string) {
      checkName('key', key);
      return open().get(namespace, redact(key), now().toISOString());
    },
    async search(query: Omit<MemoryQuery, 'namespace'>, signal?: AbortSignal) {
      const full = { ...query, namespace };
      checkQuery(full);
      const embedder = query.mode === 'text' ? undefined : embedderFor(settings);
      const vector = embedder ? { identity: embedder.identity, values: (await embedder.embed([query.text], signal))[0]! } : null;
      return open().search(full, vector, now().toISOString());
    },
  });
  return { service, close: () => store?.close() };
}
