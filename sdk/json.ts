// JSON value types shared by every part of the contract.

/** Any value that survives a JSON round trip. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * JSON text with object keys sorted at every level: equal values give equal text, whatever order their keys were
 * written in. Digests (effect ids, schema digests) are taken of it.
 */
export function canonicalJson(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key]!)}`).join(',')}}`;
}

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };
