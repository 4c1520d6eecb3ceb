// The run's long-term memory service: the workflow's namespace in its store, opened on first use and closed with the
// task attempt. Writes are validated and embedded here, so every store receives only entries that keep the contract.
import { AgentctlError, type CompiledLongTermMemory, type LongTermMemoryService, type MemoryEmbedder, type MemoryEntry, type MemoryQuery, type MemoryStore, type MemoryStoreProvider } from '@agentctl/sdk';
import { checkEntry, checkName, checkQuery, searchableText } from './entry.js';
import { localHashEmbedder } from './local-hash.js';
import { providerEmbedder, providerIdentity, type ProviderEmbedding } from './provider-embedder.js';

const DAY_MS = 86_400_000;

/** What a workflow without `spec.memory.longTerm` uses: the `sqlite` store's `default` namespace, kept until replaced. */
export const DEFAULT_LONG_TERM_MEMORY: CompiledLongTermMemory = Object.freeze({ provider: 'sqlite', namespace: 'default', retentionDays: null, embedding: Object.freeze({ provider: 'local_hash', model: null, dimensions: 64 }) });

/**
 * The embedder of compiled settings: `local_hash`, or the provider entry they name through `provider` (what the
 * runner resolved in preflight). Without it, an entry's embedding cannot be computed here.
 */
export function embedderFor(settings: CompiledLongTermMemory, provider?: Omit<ProviderEmbedding, 'model' | 'dimensions'>): MemoryEmbedder {
  const { embedding } = settings;
  if (embedding.provider === 'local_hash') return localHashEmbedder(embedding.dimensions);
  if (!provider || embedding.model === null) {
    throw new AgentctlError('AGENTCTL_E_MEMORY_EMBEDDING_UNSUPPORTED', `embedding provider ${embedding.provider} is not available here`, { help: 'name a spec.providers entry whose kind embeds, with embedding.model' });
  }
  return providerEmbedder(embedding.provider, { ...provider, model: embedding.model, dimensions: embedding.dimensions });
}

/** How a service is made beyond its store and settings. */
export interface MemoryServiceOptions {
  /** Replaces the run's secret values in an entry before it is checked, embedded or stored. */
  readonly redact?: <T>(value: T) => T;
  readonly now?: () => Date;
  /** The provider entry the settings embed through, resolved in preflight (absent for `local_hash`). */
  readonly provider?: Omit<ProviderEmbedding, 'model' | 'dimensions'>;
}

/** One text embedded, with the identity of the embedding that made it. */
async function embedOne(embedder: MemoryEmbedder, text: string, signal?: AbortSignal) {
  return { identity: embedder.identity, values: (await embedder.embed([text], signal))[0]! };
}

/** A service and the close of the store it opened (nothing is opened until a method is called). */
export interface OpenedMemory {
  readonly service: LongTermMemoryService;
  close(): void;
}

/**
 * The service of `settings` in the store of the state database `database` (its file, and where its state key is
 * read). `options.redact` replaces the run's secret values in an entry before it is checked, embedded or stored, so
 * no secret reaches the store even when a task's input holds one.
 */
export function longTermMemoryService(lookup: (provider: string) => MemoryStoreProvider | undefined, settings: CompiledLongTermMemory, database: { readonly path: string; readonly stateKeys: Readonly<Record<string, string>> }, options: MemoryServiceOptions = {}): OpenedMemory {
  const redact = options.redact ?? (<T>(value: T) => value);
  const now = options.now ?? (() => new Date());
  // Made on first use: a workflow that only reads never needs the provider.
  let embedder: MemoryEmbedder | undefined;
  const embedding = () => (embedder ??= embedderFor(settings, options.provider));
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
    // The identity its vectors get (for a provider entry, `KIND:ENTRY`), which a search compares and records.
    embedding: options.provider && settings.embedding.provider !== 'local_hash' ? { ...settings.embedding, provider: providerIdentity(options.provider.kind.kind, settings.embedding.provider) } : settings.embedding,
    async write(key: string, given: MemoryEntry, signal?: AbortSignal) {
      checkName('namespace', namespace);
      checkName('key', key);
      const entry = redact(given);
      checkEntry(entry);
      const text = searchableText(entry);
      const vector = text === null ? null : await embedOne(embedding(), text, signal);
      const at = now();
      const expiresAt = settings.retentionDays === null ? null : new Date(at.getTime() + settings.retentionDays * DAY_MS).toISOString();
      return open().put({ namespace, key: redact(key), entry, expiresAt, vector }, at.toISOString());
    },
    async read(key: string) {
      checkName('key', key);
      return open().get(namespace, redact(key), now().toISOString());
    },
    async search(query: Omit<MemoryQuery, 'namespace'>, signal?: AbortSignal) {
      // The query is redacted like an entry: a secret value is never sent to an embedding provider, and an entry
      // that held one was stored redacted, so the redacted query is the one that matches it.
      const full = { ...query, text: redact(query.text), namespace };
      checkQuery(full);
      const vector = query.mode === 'text' ? null : await embedOne(embedding(), full.text, signal);
      return open().search(full, vector, now().toISOString());
    },
  });
  return { service, close: () => store?.close() };
}
