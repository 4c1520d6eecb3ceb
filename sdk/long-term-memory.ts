// Long-term memory: the versioned entry contract, the store a provider plugs in, and the service a dispatch gets.
import type { JsonValue } from './json.js';

/** The format version of a long-term memory entry; an entry of another version is refused. */
export const MEMORY_ENTRY_FORMAT_VERSION = 1;

/** The bounds every long-term memory store and search keeps. */
export const MEMORY_LIMITS = Object.freeze({
  /** Bytes of an entry's JSON (`{formatVersion, content, metadata}`). */
  entryBytes: 1024 * 1024,
  /** Bytes of a search query's text. */
  queryBytes: 64 * 1024,
  /** Results of one search: 1 through this. */
  maxResults: 100,
  /** Entries one search scans at most, in key order. */
  maxCandidates: 10_000,
  /** Dimensions of an embedding: this through `maxDimensions`. */
  minDimensions: 8,
  maxDimensions: 4096,
  /** Days an entry may be kept: 1 through this. */
  maxRetentionDays: 36_500,
});

/** What an entry holds: a text, or a JSON value with an optional searchable text. */
export type MemoryContent = { readonly type: 'text'; readonly text: string } | { readonly type: 'json'; readonly value: JsonValue; readonly text?: string };

/** One long-term memory entry, as stored and as a store returns it. */
export interface MemoryEntry {
  readonly formatVersion: number;
  readonly content: MemoryContent;
  /** Exact-match metadata: what search filters compare. */
  readonly metadata: Readonly<Record<string, JsonValue>>;
}

/** How a search ranks: by shared words, by embedding similarity, or both. */
export type MemorySearchMode = 'text' | 'vector' | 'hybrid';

/**
 * Which embedding made a vector: its provider (`local_hash`, or `KIND:ENTRY` for a `spec.providers` entry, e.g.
 * `openai:main`), model and dimensions. Vectors are compared only when all three are equal.
 */
export interface MemoryEmbeddingIdentity {
  readonly provider: string;
  readonly model: string | null;
  readonly dimensions: number;
}

/** A stored entry with where it lives and when it was written. Times are ISO 8601. */
export interface MemoryRecord {
  readonly namespace: string;
  readonly key: string;
  readonly entry: MemoryEntry;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** When the entry stops being returned (and `gc` removes it); null keeps it until it is replaced. */
  readonly expiresAt: string | null;
  /** The embedding of the stored vector; null when the entry has no searchable text. */
  readonly embedding: MemoryEmbeddingIdentity | null;
}

/** One search result: the record and its score (higher is better; ties are ordered by key). */
export interface MemorySearchHit extends MemoryRecord {
  readonly score: number;
}

/** A search of one namespace. */
export interface MemoryQuery {
  readonly namespace: string;
  readonly text: string;
  readonly mode: MemorySearchMode;
  /** 1 through `MEMORY_LIMITS.maxResults`. */
  readonly limit: number;
  /** Metadata keys and the exact JSON values an entry must have. */
  readonly filters: Readonly<Record<string, JsonValue>>;
}

/** What a store is asked to keep. */
export interface MemoryWrite {
  readonly namespace: string;
  readonly key: string;
  readonly entry: MemoryEntry;
  readonly expiresAt: string | null;
  /** The entry's searchable text embedded, with the embedding that made it; null without searchable text. */
  readonly vector: { readonly identity: MemoryEmbeddingIdentity; readonly values: Float32Array } | null;
}

/** An embedding of texts into unit vectors of one identity. */
export interface MemoryEmbedder {
  readonly identity: MemoryEmbeddingIdentity;
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

/**
 * A long-term memory store: where entries live and how they are searched. Every method works at `now` (ISO 8601):
 * an entry whose `expiresAt` is not after `now` is never returned.
 */
export interface MemoryStore {
  /** Writes (or replaces) one entry; `createdAt` of a replaced entry is kept. */
  put(write: MemoryWrite, now: string): MemoryRecord;
  get(namespace: string, key: string, now: string): MemoryRecord | null;
  /**
   * Ranks the namespace's entries. `vector` is the query embedded for `vector` and `hybrid` modes (null for `text`);
   * a stored vector of another identity fails the search (AGENTCTL_E_MEMORY_VECTOR_MISMATCH), and so does a corrupt
   * one (AGENTCTL_E_MEMORY_VECTOR_CORRUPT).
   */
  search(query: MemoryQuery, vector: { readonly identity: MemoryEmbeddingIdentity; readonly values: Float32Array } | null, now: string): MemorySearchHit[];
  /** Removes the entries whose `expiresAt` is not after `now`; returns how many. */
  removeExpired(now: string): number;
  /** Re-embeds every unexpired entry of a namespace with `embedder`; returns how many entries were re-embedded. */
  reindex(namespace: string, embedder: MemoryEmbedder, now: string, signal?: AbortSignal): Promise<number>;
  close(): void;
}

/** Where a store provider opens its store. */
export interface MemoryStoreContext {
  /** The run's state database file (absolute): a store kept beside the ledger opens it. */
  readonly databasePath: string;
  /** Create the database when it is not there yet. */
  readonly create: boolean;
  /**
   * Key id → the environment variable that holds that state key here (the project config's `stateKeys`), for a
   * store in an encrypted state database; a key id not named is read from the variable the database records.
   */
  readonly stateKeys?: Readonly<Record<string, string>>;
}

/** A long-term memory store provider: the `provider` of `spec.memory.longTerm`. */
export interface MemoryStoreProvider {
  /** The provider name, e.g. `sqlite`. */
  readonly provider: string;
  readonly description?: string;
  open(context: MemoryStoreContext): MemoryStore;
}

/**
 * The run's long-term memory, on the dispatch context: the workflow's namespace in its store, with its retention and
 * embedding. The kinds record what they read or write through `context.effect`, so replay never comes back here.
 */
export interface LongTermMemoryService {
  readonly provider: string;
  readonly namespace: string;
  readonly retentionDays: number | null;
  readonly embedding: MemoryEmbeddingIdentity;
  /** Validates, embeds and stores an entry under `key`, expiring after `retentionDays` when set. */
  write(key: string, entry: MemoryEntry, signal?: AbortSignal): Promise<MemoryRecord>;
  read(key: string): Promise<MemoryRecord | null>;
  search(query: Omit<MemoryQuery, 'namespace'>, signal?: AbortSignal): Promise<MemorySearchHit[]>;
}
