// The `sqlite` long-term memory store: a table of the state database (migration 8), searched by a bounded scan of at
// most 10,000 unexpired entries of one namespace in key order. Each row keeps its entry, its metadata, its words
// (the search index) and its vector (float32 bytes in base64) with the embedding identity that made it. On an
// encrypted database those four are sealed with the state key like the ledger's own values (protected-columns.ts):
// a search then cannot match words in SQL, so it opens the bounded candidates and scores them here, the same way.
import { AgentctlError, canonicalJson, isAgentctlError, MEMORY_LIMITS, type JsonValue, type MemoryEmbedder, type MemoryEmbeddingIdentity, type MemoryEntry, type MemoryQuery, type MemoryRecord, type MemorySearchHit, type MemoryStore, type MemoryStoreContext, type MemoryWrite } from '@agentctl/sdk';
import { databaseError, openDatabase, type SqliteDatabase } from '../store/database.js';
import type { ProtectedColumn } from '../store/protected-columns.js';
import { installWriteGuards, readKeyRecord, recordedCipher, StateProtection } from '../store/state-protection.js';
import { searchableText } from './entry.js';
import { memoryTokens } from './local-hash.js';
import { byScoreThenKey, combinedScore, queryWords, textScore, vectorScore } from './scoring.js';

interface Row {
  namespace: string;
  memory_key: string;
  entry_json: string;
  created_at: string;
  updated_at: string;
  expires_at: string | null;
  embedding_provider: string | null;
  embedding_model: string | null;
  embedding_dimensions: number | null;
}

interface Candidate extends Pick<Row, 'memory_key' | 'embedding_provider' | 'embedding_model' | 'embedding_dimensions'> {
  metadata_json: string;
  search_tokens: string | null;
  embedding: string | null;
}

const RECORD_COLUMNS = 'namespace, memory_key, entry_json, created_at, updated_at, expires_at, embedding_provider, embedding_model, embedding_dimensions';
const UNEXPIRED = '(expires_at IS NULL OR expires_at > @now)';

const TABLE = 'long_term_memory';
const column = (name: 'entry_json' | 'metadata_json' | 'search_tokens' | 'embedding'): ProtectedColumn => `${TABLE}.${name}`;

/** A vector as the column keeps it: its float32 bytes in base64. */
const vectorText = (values: Float32Array): string => Buffer.from(values.buffer, values.byteOffset, values.byteLength).toString('base64');

/** The row's entry and identity as the SDK's record (its entry already opened). */
function record(row: Row): MemoryRecord {
  const embedding = row.embedding_provider === null ? null : { provider: row.embedding_provider, model: row.embedding_model, dimensions: row.embedding_dimensions! };
  return { namespace: row.namespace, key: row.memory_key, entry: JSON.parse(row.entry_json) as MemoryEntry, createdAt: row.created_at, updatedAt: row.updated_at, expiresAt: row.expires_at, embedding };
}

/** The stored vector (opened), refused when its bytes are not `dimensions` finite float32 values. */
function storedVector(candidate: Candidate, stored: string | null, namespace: string): Float32Array {
  const bytes = stored === null ? null : Buffer.from(stored, 'base64');
  const dimensions = candidate.embedding_dimensions ?? 0;
  if (bytes === null || bytes.length !== dimensions * 4) {
    throw new AgentctlError('AGENTCTL_E_MEMORY_VECTOR_CORRUPT', `the stored vector of memory ${namespace}/${candidate.memory_key} has ${bytes?.length ?? 0} bytes, not ${dimensions} float32 values`);
  }
  const vector = new Float32Array(new Uint8Array(bytes).buffer);
  if (!vector.every(Number.isFinite)) throw new AgentctlError('AGENTCTL_E_MEMORY_VECTOR_CORRUPT', `the stored vector of memory ${namespace}/${candidate.memory_key} holds a value that is not a finite number`);
  return vector;
}

const sameIdentity = (candidate: Candidate, identity: MemoryEmbeddingIdentity): boolean =>
  candidate.embedding_provider === identity.provider && (candidate.embedding_model ?? null) === identity.model && candidate.embedding_dimensions === identity.dimensions;

const describeIdentity = (identity: { provider: string | null; model: string | null; dimensions: number | null }): string =>
  `${identity.provider}${identity.model ? `/${identity.model}` : ''} (${identity.dimensions} dimensions)`;

/** The metadata filters as canonical JSON, compared with each candidate's metadata values. */
function matchesFilters(metadataJson: string, filters: ReadonlyArray<[string, string]>): boolean {
  if (filters.length === 0) return true;
  const metadata = JSON.parse(metadataJson) as Record<string, JsonValue>;
  return filters.every(([key, value]) => Object.hasOwn(metadata, key) && canonicalJson(metadata[key]!) === value);
}

export class SqliteMemoryStore implements MemoryStore {
  readonly #db: SqliteDatabase;
  /** The database's state key, when its state is encrypted: every value column is sealed with it. */
  readonly #protection: StateProtection;

  constructor(db: SqliteDatabase, protection: StateProtection = new StateProtection(null)) {
    this.#db = db;
    this.#protection = protection;
  }

  /**
   * Opens the store in the state database. On an encrypted database the key is resolved and checked as the ledger
   * does it (the recorded variable, or the one `context.stateKeys` names for its key id): without it, nothing opens.
   */
  static open(context: MemoryStoreContext, readonly = false): SqliteMemoryStore {
    const db = openDatabase(context.databasePath, { create: context.create, ...(readonly ? { readonly } : {}) });
    try {
      const record = readKeyRecord(db);
      const protection = new StateProtection(recordedCipher(record, context.stateKeys));
      if (record && !readonly) installWriteGuards(db);
      return new SqliteMemoryStore(db, protection);
    } catch (error) {
      db.close();
      if (isAgentctlError(error)) throw error;
      throw databaseError(error, `database ${context.databasePath} cannot be opened`, 'AGENTCTL_E_DB_OPEN');
    }
  }

  put(write: MemoryWrite, now: string): MemoryRecord {
    const text = searchableText(write.entry);
    const words = text === null ? '' : [...new Set(memoryTokens(text))].join(' ');
    const vector = write.vector;
    this.#run(() =>
      this.#db
        .prepare(
          `INSERT INTO long_term_memory (namespace, memory_key, entry_json, metadata_json, search_tokens, embedding_provider, embedding_model, embedding_dimensions, embedding, created_at, updated_at, expires_at)
           VALUES (@namespace, @key, @entry, @metadata, @words, @provider, @model, @dimensions, @embedding, @now, @now, @expiresAt)
           ON CONFLICT (namespace, memory_key) DO UPDATE SET entry_json = excluded.entry_json, metadata_json = excluded.metadata_json,
             search_tokens = excluded.search_tokens, embedding_provider = excluded.embedding_provider, embedding_model = excluded.embedding_model,
             embedding_dimensions = excluded.embedding_dimensions, embedding = excluded.embedding, updated_at = excluded.updated_at, expires_at = excluded.expires_at,
             created_at = CASE WHEN long_term_memory.expires_at IS NOT NULL AND long_term_memory.expires_at <= excluded.updated_at THEN excluded.created_at ELSE long_term_memory.created_at END`,
        )
        .run({
          namespace: write.namespace,
          key: write.key,
          entry: this.#seal('entry_json', JSON.stringify(write.entry)),
          metadata: this.#seal('metadata_json', JSON.stringify(write.entry.metadata)),
          words: this.#seal('search_tokens', words),
          provider: vector?.identity.provider ?? null,
          model: vector?.identity.model ?? null,
          dimensions: vector?.identity.dimensions ?? null,
          embedding: vector ? this.#seal('embedding', vectorText(vector.values)) : null,
          now,
          expiresAt: write.expiresAt,
        }),
    );
    // Read back whatever its expiry: the caller sees the row as stored, `createdAt` of a replaced entry included.
    const row = this.#run(() => this.#db.prepare(`SELECT ${RECORD_COLUMNS} FROM long_term_memory WHERE namespace = @namespace AND memory_key = @key`).get({ namespace: write.namespace, key: write.key }) as Row);
    return record(this.#protection.opened(TABLE, row));
  }

  get(namespace: string, key: string, now: string): MemoryRecord | null {
    const row = this.#run(() => this.#db.prepare(`SELECT ${RECORD_COLUMNS} FROM long_term_memory WHERE namespace = @namespace AND memory_key = @key AND ${UNEXPIRED}`).get({ namespace, key, now }) as Row | undefined);
    return row ? record(this.#protection.opened(TABLE, row)) : null;
  }

  search(query: MemoryQuery, vector: { readonly identity: MemoryEmbeddingIdentity; readonly values: Float32Array } | null, now: string): MemorySearchHit[] {
    const readsVector = query.mode !== 'text';
    if (readsVector && vector === null) throw new AgentctlError('AGENTCTL_E_MEMORY_INVALID', `a ${query.mode} search needs the query's vector`);
    const columns = `memory_key, metadata_json, search_tokens, embedding_provider, embedding_model, embedding_dimensions${readsVector ? ', embedding' : ', NULL AS embedding'}`;
    const words = queryWords(memoryTokens(query.text));
    // The candidates are the first 10,000 unexpired entries in key order. On plaintext, a text search reads only those
    // sharing a word; sealed words cannot be matched in SQL, so then every candidate is opened and scored (a candidate
    // sharing no word scores 0 either way, so the results are the same).
    const prefilter = query.mode === 'text' && !this.#protection.enabled;
    const shared = [...words].map((_, index) => `instr(' ' || search_tokens || ' ', @word${index}) > 0`).join(' OR ');
    const scan = `SELECT * FROM long_term_memory WHERE namespace = @namespace AND ${UNEXPIRED} ORDER BY memory_key LIMIT @limit`;
    const sql = prefilter ? `SELECT ${columns} FROM (${scan}) WHERE ${shared || '0'} ORDER BY memory_key` : `SELECT ${columns} FROM (${scan}) ORDER BY memory_key`;
    const parameters = prefilter ? Object.fromEntries([...words].map((word, index) => [`word${index}`, ` ${word} `])) : {};
    const candidates = this.#run(() => this.#db.prepare(sql).all({ namespace: query.namespace, now, limit: MEMORY_LIMITS.maxCandidates, ...parameters }) as Candidate[]);
    const filters = Object.entries(query.filters).map(([key, value]): [string, string] => [key, canonicalJson(value)]);
    const scored: { key: string; score: number }[] = [];
    for (const candidate of candidates) {
      // Each column is opened only when the query reads it.
      if (filters.length > 0 && !matchesFilters(this.#open('metadata_json', candidate.metadata_json)!, filters)) continue;
      const text = query.mode === 'vector' ? 0 : textScore(words, ` ${this.#open('search_tokens', candidate.search_tokens)} `);
      let similarity = 0;
      if (readsVector && candidate.embedding_provider !== null) {
        if (!sameIdentity(candidate, vector!.identity)) {
          throw new AgentctlError('AGENTCTL_E_MEMORY_VECTOR_MISMATCH', `memory ${query.namespace}/${candidate.memory_key} was embedded by ${describeIdentity({ provider: candidate.embedding_provider, model: candidate.embedding_model, dimensions: candidate.embedding_dimensions })}, the query by ${describeIdentity(vector!.identity)}`, {
            help: 'search with the embedding the namespace was written with (spec.memory.longTerm.embedding), or write its entries again with this one',
          });
        }
        similarity = vectorScore(vector!.values, storedVector(candidate, this.#open('embedding', candidate.embedding), query.namespace));
      }
      const score = combinedScore(query.mode, text, similarity);
      if (score > 0) scored.push({ key: candidate.memory_key, score });
    }
    scored.sort(byScoreThenKey);
    return scored.slice(0, query.limit).map(({ key, score }) => ({ ...this.get(query.namespace, key, now)!, score }));
  }

  /** The embeddings the namespace's unexpired entries were made with (at most two: one is all a caller needs to know). */
  embeddings(namespace: string, now: string): MemoryEmbeddingIdentity[] {
    const rows = this.#run(
      () =>
        this.#db
          .prepare(`SELECT DISTINCT embedding_provider AS provider, embedding_model AS model, embedding_dimensions AS dimensions FROM long_term_memory WHERE namespace = @namespace AND ${UNEXPIRED} AND embedding_provider IS NOT NULL LIMIT 2`)
          .all({ namespace, now }) as MemoryEmbeddingIdentity[],
    );
    return rows.map((row) => ({ provider: row.provider, model: row.model ?? null, dimensions: row.dimensions }));
  }

  removeExpired(now: string): number {
    return this.#run(() => this.#db.prepare(`DELETE FROM long_term_memory WHERE expires_at IS NOT NULL AND expires_at <= @now`).run({ now }).changes);
  }

  async reindex(namespace: string, embedder: MemoryEmbedder, now: string, signal?: AbortSignal): Promise<number> {
    const rows = this.#run(() => this.#db.prepare(`SELECT ${RECORD_COLUMNS} FROM long_term_memory WHERE namespace = @namespace AND ${UNEXPIRED} ORDER BY memory_key`).all({ namespace, now }) as Row[]);
    const entries = rows.map((row) => ({ key: row.memory_key, text: searchableText(JSON.parse(this.#open('entry_json', row.entry_json)!) as MemoryEntry) })).filter((item): item is { key: string; text: string } => item.text !== null);
    const vectors = await embedder.embed(entries.map((item) => item.text), signal);
    const { provider, model, dimensions } = embedder.identity;
    const update = this.#db.prepare(`UPDATE long_term_memory SET embedding_provider = @provider, embedding_model = @model, embedding_dimensions = @dimensions, embedding = @embedding WHERE namespace = @namespace AND memory_key = @key`);
    this.#run(() =>
      this.#db.transaction(() => {
        entries.forEach((item, index) => {
          const values = vectors[index]!;
          update.run({ provider, model, dimensions, embedding: this.#seal('embedding', vectorText(values)), namespace, key: item.key });
        });
      })(),
    );
    return entries.length;
  }

  close(): void {
    this.#db.close();
  }

  /** `text` as the column keeps it: sealed with the state key, or as it is on a database without one. */
  #seal(name: Parameters<typeof column>[0], text: string): string {
    return this.#protection.seal(column(name), text)!;
  }

  /** A stored value opened: a sealed one is authenticated for its column (a changed byte is refused). */
  #open(name: Parameters<typeof column>[0], stored: string | null): string | null {
    return stored === null ? null : this.#protection.open(column(name), stored);
  }

  /** A database failure (locked, full, corrupt) is a persistence error naming the store. */
  #run<T>(body: () => T): T {
    try {
      return body();
    } catch (error) {
      if (error instanceof AgentctlError) throw error;
      throw databaseError(error, 'the long-term memory store failed', 'AGENTCTL_E_DB_WRITE');
    }
  }
}
