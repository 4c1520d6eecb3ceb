// The entry and query contract: what a store may be given, checked before anything is written or searched.
import { AgentctlError, canonicalJson, MEMORY_ENTRY_FORMAT_VERSION, MEMORY_LIMITS, type JsonValue, type MemoryEntry, type MemoryQuery } from '@agentctl/sdk';

const invalid = (message: string, help?: string): AgentctlError => new AgentctlError('AGENTCTL_E_MEMORY_INVALID', message, help ? { help } : {});

/** The text search and embeddings read: a text entry's text, a JSON entry's optional `text`. */
export function searchableText(entry: MemoryEntry): string | null {
  return entry.content.type === 'text' ? entry.content.text : (entry.content.text ?? null);
}

/** The value a read returns: a text entry's text, a JSON entry's value. */
export function entryValue(entry: MemoryEntry): JsonValue {
  return entry.content.type === 'text' ? entry.content.text : entry.content.value;
}

/** A legacy `value` (with optional searchable text) as a typed entry: a string value is its own text. */
export function entryFromValue(value: JsonValue, text: string | undefined, metadata: Record<string, JsonValue>): MemoryEntry {
  const searchable = text ?? (typeof value === 'string' ? value : value === null ? undefined : JSON.stringify(value));
  return { formatVersion: MEMORY_ENTRY_FORMAT_VERSION, content: { type: 'json', value, ...(searchable === undefined ? {} : { text: searchable }) }, metadata };
}

export function checkName(what: 'namespace' | 'key', value: string): void {
  if (value === '') throw invalid(`the memory ${what} must not be empty`);
}

/** Refuses an entry of another format version, an empty searchable text or metadata key, or one over 1 MiB. */
export function checkEntry(entry: MemoryEntry): void {
  if (entry.formatVersion !== MEMORY_ENTRY_FORMAT_VERSION) throw invalid(`unsupported memory entry format version ${entry.formatVersion}`, `write formatVersion: ${MEMORY_ENTRY_FORMAT_VERSION}`);
  if (searchableText(entry) === '') throw invalid('memory text must not be empty');
  if (Object.keys(entry.metadata).some((key) => key === '')) throw invalid('memory metadata keys must not be empty');
  const bytes = Buffer.byteLength(canonicalJson(entry as unknown as JsonValue), 'utf8');
  if (bytes > MEMORY_LIMITS.entryBytes) throw invalid(`memory entry is ${bytes} bytes, over the ${MEMORY_LIMITS.entryBytes}-byte limit`, 'keep bulk data in files and store a reference to them');
}

/** Refuses an empty namespace or query, a limit outside 1..100, an empty filter key or a query over 64 KiB. */
export function checkQuery(query: MemoryQuery): void {
  checkName('namespace', query.namespace);
  if (query.text === '') throw invalid('the memory search query must not be empty');
  if (!Number.isInteger(query.limit) || query.limit < 1 || query.limit > MEMORY_LIMITS.maxResults) throw invalid(`memory result limit ${query.limit} must be between 1 and ${MEMORY_LIMITS.maxResults}`);
  if (Object.keys(query.filters).some((key) => key === '')) throw invalid('memory filter keys must not be empty');
  const bytes = Buffer.byteLength(query.text, 'utf8');
  if (bytes > MEMORY_LIMITS.queryBytes) throw invalid(`the memory search query is ${bytes} bytes, over the ${MEMORY_LIMITS.queryBytes}-byte limit`);
}
