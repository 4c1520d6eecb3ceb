// The documents of the `memory` commands: entries of the state database's long-term memory, by namespace and key.
// Every object stays loose: a reader must accept fields it does not know.
import { z } from 'zod';

const count = z.number().int().nonnegative();
/** An ISO 8601 / RFC 3339 instant in UTC. */
const instant = z.string();

const EmbeddingIdentity = z.looseObject({ provider: z.string(), model: z.string().nullable(), dimensions: count });

/** A versioned entry: a text, or a JSON value with an optional searchable text, and exact-match metadata. */
const MemoryEntryValue = z.looseObject({
  formatVersion: z.literal(1),
  content: z.union([z.looseObject({ type: z.literal('text'), text: z.string() }), z.looseObject({ type: z.literal('json'), value: z.json(), text: z.string().optional() })]),
  metadata: z.record(z.string(), z.json()),
});

/** One stored entry as the commands print it. */
const MemoryRecordDocument = z.looseObject({
  namespace: z.string(),
  key: z.string(),
  entry: MemoryEntryValue,
  /** A text entry's text, a JSON entry's value. */
  value: z.json(),
  /** The searchable text (null for a JSON entry without one). */
  text: z.string().nullable(),
  createdAt: instant,
  updatedAt: instant,
  /** When it stops being returned and `gc` removes it; null keeps it until it is replaced. */
  expiresAt: instant.nullable(),
  /** What made its vector; null without searchable text. */
  embedding: EmbeddingIdentity.nullable(),
});

/** The `data` schema of each `memory` subcommand's kind, by kind. */
export const memoryDocuments = {
  /** `memory get`: the entry, or `found: false` and a null value. */
  MemoryEntry: z.union([MemoryRecordDocument.extend({ found: z.literal(true) }), z.looseObject({ found: z.literal(false), namespace: z.string(), key: z.string(), value: z.null() })]),
  /** `memory put`: the entry as stored. */
  MemoryWrite: MemoryRecordDocument.extend({ written: z.literal(true) }),
  /** `memory search`: the results, best first (ties by key), each with its score. */
  MemorySearch: z.looseObject({
    namespace: z.string(),
    query: z.string(),
    mode: z.enum(['text', 'vector', 'hybrid']),
    limit: count,
    count,
    results: z.array(MemoryRecordDocument.extend({ score: z.number() })),
  }),
  /** `memory reindex`: how many entries were embedded again, and with what. */
  MemoryReindex: z.looseObject({ namespace: z.string(), reindexed: count, embedding: EmbeddingIdentity }),
} satisfies Record<string, z.ZodType>;
