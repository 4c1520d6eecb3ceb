// Gemini takes a subset of OpenAPI 3 schema for function `parameters` and `responseSchema`, and refuses a schema with
// a keyword outside it (notably `additionalProperties`, which every strict agentctl tool schema has). The schemas are
// therefore sent with only the keywords Gemini knows; the host still validates tool inputs and the final answer
// against the full schemas, so the stripped keywords are enforced, only not told to the model.
import type { JsonObject, JsonValue } from '@agentctl/sdk';

const KEPT = new Set(['type', 'format', 'title', 'description', 'nullable', 'enum', 'maxItems', 'minItems', 'required', 'minProperties', 'maxProperties', 'minLength', 'maxLength', 'pattern', 'minimum', 'maximum', 'propertyOrdering']);

const isObject = (value: JsonValue | undefined): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A JSON Schema → the same schema with only Gemini's keywords, recursively through properties, items and anyOf. */
export function geminiSchema(schema: JsonValue): JsonValue {
  if (!isObject(schema)) return schema;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type' && Array.isArray(value)) {
      // JSON Schema's ["string", "null"] is Gemini's {type: string, nullable: true}.
      const types = value.filter((type) => type !== 'null');
      if (types.length === 1) out.type = types[0]!;
      if (types.length < value.length) out.nullable = true;
    } else if (KEPT.has(key)) out[key] = value;
    else if (key === 'properties' && isObject(value)) out.properties = Object.fromEntries(Object.entries(value).map(([name, property]) => [name, geminiSchema(property)]));
    else if (key === 'items') out.items = geminiSchema(value);
    else if (key === 'anyOf' && Array.isArray(value)) out.anyOf = value.map(geminiSchema);
  }
  return out;
}
