// The `sqlite` long-term memory store: a table of the state database (migration 8), searched by a bounded scan of at
// most 10,000 unexpired entries of one namespace in key order. Each row keeps its entry, its metadata, its words
// (the search index) and its vector with the embedding identity that made it.
import { AgentctlError, canonicalJson, MEMORY_LIMITS, type JsonValue, type MemoryEmbedder, type MemoryEmbeddingIdentity, type MemoryEntry, type MemoryQuery, type MemoryRecord, type MemorySearchHit, type MemoryStore, type MemoryStoreContext, type MemoryWrite } from '@agentctl/sdk';
import { databaseError, openDatabase, type SqliteDatabase } from '../store/database.js';
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
  search_tokens: string;
  embedding: Buffer | null;
}

const RECORD_COLUMNS = 'namespace, memory_key, entry_json, created_at, updated_at, expires_at, embedding_provider, embedding_model, embedding_dimensions';
const UNEXPIRED = '(expires_at IS NULL OR expires_at > @now)';

/** The row's entry and identity as the SDK's record. */
function record(row: Row): MemoryRecord {
  const embedding = row.embedding_provider === null ? null : { provider: row.embedding_provider, model: row.embedding_model, dimensions: row.embedding_dimensions! };
  return { namespace: row.namespace, key: row.memory_key, entry: JSON.parse(row.entry_json) as MemoryEntry, createdAt: row.created_at, updatedAt: row.updated_at, expiresAt: row.expires_at, embedding };
}

/** The stored vector, refused when its bytes are not `dimensions` finite float32 values. */
function storedVector(candidate: Candidate, namespace: string): Float32Array {
  const bytes = candidate.embedding;
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

  constructor(db: SqliteDatabase) {
    this.#db = db;
  }

  static open(context: MemoryStoreContext, readonly = false): SqliteMemoryStore {
    return new SqliteMemoryStore(openDatabase(context.databasePath, { create: context.create, ...(readonly ? { readonly } : {}) }));
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
          entry: JSON.stringify(write.entry),
          metadata: JSON.stringify(write.entry.metadata),
          words,
          provider: vector?.identity.provider ?? null,
          model: vector?.identity.model ?? null,
          dimensions: vector?.identity.dimensions ?? null,
          embedding: vector ? Buffer.from(vector.values.buffer, vector.values.byteOffset, vector.values.byteLength) : null,
          now,
          expiresAt: write.expiresAt,
        }),
    );
    // Read back whatever its expiry: the caller sees the row as stored, `createdAt` of a replaced entry included.
    const row = this.#run(() => this.#db.prepare(`SELECT ${RECORD_COLUMNS} FROM long_term_memory WHERE namespace = @namespace AND memory_key = @key`).get({ namespace: write.namespace, key: write.key }) as Row);
    return record(row);
  }

  get(namespace: string, key: string, now: string): MemoryRecord | null {
    const row = this.#run(() => this.#db.prepare(`SELECT ${RECORD_COLUMNS} FROM long_term_memory WHERE namespace = @namespace AND memory_key = @key AND ${UNEXPIRED}`).get({ namespace, key, now }) as Row | undefined);
    return row ? record(row) : null;
  }

  search(query: MemoryQuery, vector: { readonly identity: MemoryEmbeddingIdentity; readonly values: Float32Array } | null, now: string): MemorySearchHit[] {
    const readsVector = query.mode !== 'text';
    if (readsVector && vector === null) throw new AgentctlError('AGENTCTL_E_MEMORY_INVALID', `a ${query.mode} search needs the query's vector`);
    const columns = `memory_key, metadata_json, search_tokens, embedding_provider, embedding_model, embedding_dimensions${readsVector ? ', embedding' : ', NULL AS embedding'}`;
    const words = queryWords(memoryTokens(query.text));
    // The candidates are the first 10,000 unexpired entries in key order; a text search reads only those sharing a word.
    const shared = [...words].map((_, index) => `instr(' ' || search_tokens || ' ', @word${index}) > 0`).join(' OR ');
    const scan = `SELECT * FROM long_term_memory WHERE namespace = @namespace AND ${UNEXPIRED} ORDER BY memory_key LIMIT @limit`;
    const sql = query.mode === 'text' ? `SELECT ${columns} FROM (${scan}) WHERE ${shared || '0'} ORDER BY memory_key` : `SELECT ${columns} FROM (${scan}) ORDER BY memory_key`;
    const parameters = Object.fromEntries([...words].map((word, index) => [`word${index}`, ` ${word} `]));
    const candidates = this.#run(() => this.#db.prepare(sql).all({ namespace: query.namespace, now, limit: MEMORY_LIMITS.maxCandidates, ...parameters }) as Candidate[]);
    const filters = Object.entries(query.filters).map(([key, value]): [string, string] => [key, canonicalJson(value)]);
    const scored: { key: string; score: number }[] = [];
    for (const candidate of candidates) {
      if (!matchesFilters(candidate.metadata_json, filters)) continue;
      const text = query.mode === 'vector' ? 0 : textScore(words, ` ${candidate.search_tokens} `);
      let similarity = 0;
      if (readsVector && candidate.embedding_provider !== null) {
        if (!sameIdentity(candidate, vector!.identity)) {
          throw new AgentctlError('AGENTCTL_E_MEMORY_VECTOR_MISMATCH', `memory ${query.namespace}/${candidate.memory_key} was embedded by ${describeIdentity({ provider: candidate.embedding_provider, model: candidate.embedding_model, dimensions: candidate.embedding_dimensions })}, the query by ${describeIdentity(vector!.identity)}`, {
            help: 'search with the embedding the namespace was written with (spec.memory.longTerm.embedding), or write its entries again with this one',
          });
        }
        similarity = vectorScore(vector!.values, storedVector(candidate, query.namespace));
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
    const entries = rows.map((row) => ({ key: row.memory_key, text: searchableText(JSON.parse(row.entry_json) as MemoryEntry) })).filter((item): item is { key: string; text: string } => item.text !== null);
    const vectors = await embedder.embed(entries.map((item) => item.text), signal);
    const { provider, model, dimensions } = embedder.identity;
    const update = this.#db.prepare(`UPDATE long_term_memory SET embedding_provider = @provider, embedding_model = @model, embedding_dimensions = @dimensions, embedding = @embedding WHERE namespace = @namespace AND memory_key = @key`);
    this.#run(() =>
      this.#db.transaction(() => {
        entries.forEach((item, index) => {
          const values = vectors[index]!;
          update.run({ provider, model, dimensions, embedding: Buffer.from(values.buffer, values.byteOffset, values.byteLength), namespace, key: item.key });
        });
      })(),
    );
    return entries.length;
  }

  close(): void {
    this.#db.close();
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
