// The task inputs of the long-term memory kinds, bounded as the store's contract is, so a bad input is refused before
// any effect is recorded (at compile time when `with` is static).
import { MEMORY_ENTRY_FORMAT_VERSION, MEMORY_LIMITS, z, type JsonValue, type MemoryEntry } from '@agentctl/sdk';

const key = z.string().min(1, 'the memory key must not be empty');
const metadata = z.record(z.string().min(1, 'metadata keys must not be empty'), z.json());
const text = z.string().min(1, 'memory text must not be empty');

const content = z.discriminatedUnion('type', [z.strictObject({ type: z.literal('text'), text }), z.strictObject({ type: z.literal('json'), value: z.json(), text: text.optional() })]);

const entry = z.strictObject({
  formatVersion: z.literal(MEMORY_ENTRY_FORMAT_VERSION, { message: `formatVersion must be ${MEMORY_ENTRY_FORMAT_VERSION}` }),
  content,
  metadata: metadata.default({}),
});

const entryBytes = (value: MemoryEntry): number => Buffer.byteLength(JSON.stringify(value), 'utf8');

/**
 * A write: a versioned `entry`, a typed `content` block, or a legacy `value` (its searchable text is `text`, or the
 * value itself when it is a string), each with optional `metadata`. The entry's JSON is at most 1 MiB.
 */
export const writeInput = z
  .strictObject({ key, entry: entry.optional(), content: content.optional(), value: z.json().optional(), text: text.optional(), metadata: metadata.optional() })
  .refine((input) => [input.entry, input.content, input.value].filter((part) => part !== undefined).length === 1, 'give exactly one of entry, content or value')
  .refine((input) => input.text === undefined || input.value !== undefined, 'text goes with value (content and entry carry their own)')
  .refine((input) => input.entry === undefined || input.metadata === undefined, 'an entry carries its own metadata')
  .transform((input) => ({ key: input.key, entry: toEntry(input) }))
  .refine((input) => entryBytes(input.entry) <= MEMORY_LIMITS.entryBytes, `the memory entry must be at most ${MEMORY_LIMITS.entryBytes} bytes of JSON`);

function toEntry(input: { entry?: MemoryEntry; content?: MemoryEntry['content']; value?: JsonValue; text?: string; metadata?: Record<string, JsonValue> }): MemoryEntry {
  if (input.entry) return input.entry;
  const meta = input.metadata ?? {};
  if (input.content) return { formatVersion: MEMORY_ENTRY_FORMAT_VERSION, content: input.content, metadata: meta };
  const value = input.value ?? null;
  const searchable = input.text ?? (typeof value === 'string' ? value : value === null ? undefined : JSON.stringify(value));
  return { formatVersion: MEMORY_ENTRY_FORMAT_VERSION, content: { type: 'json', value, ...(searchable === undefined || searchable === '' ? {} : { text: searchable }) }, metadata: meta };
}

export const readInput = z.strictObject({ key });

export const searchInput = z.strictObject({
  query: z
    .string()
    .min(1, 'the search query must not be empty')
    .refine((query) => Buffer.byteLength(query, 'utf8') <= MEMORY_LIMITS.queryBytes, `the search query must be at most ${MEMORY_LIMITS.queryBytes} bytes`),
  mode: z.enum(['text', 'vector', 'hybrid']).default('text'),
  limit: z.number().int().min(1).max(MEMORY_LIMITS.maxResults).default(10),
  filters: metadata.default({}),
});

/**
 * A promotion into working memory: `key` is the working-memory key written; `value` (default null) is the value, as
 * the reference implementation takes it, or `from` names the long-term entry whose value is read and written instead.
 */
export const promoteInput = z
  .strictObject({ key: z.string().min(1, 'the working-memory key must not be empty'), value: z.json().optional(), from: key.optional() })
  .refine((input) => input.value === undefined || input.from === undefined, 'give value or from, not both');
