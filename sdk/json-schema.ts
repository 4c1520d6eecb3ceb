// JSON Schema 2020-12 validation, compiled once per schema with Ajv (loaded on first use): a task's outputSchema, an
// extension's input and output schemas.
import { createRequire } from 'node:module';
import type { Ajv as AjvInstance, ValidateFunction } from 'ajv';
import type { JsonValue } from './json.js';

let ajv: AjvInstance | undefined;
const cache = new Map<string, ValidateFunction>();

/** A validator for `schema`; throws with Ajv's message when the schema itself is invalid. */
export function jsonSchemaValidator(schema: JsonValue): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = cache.get(key);
  if (!validate) {
    if (!ajv) {
      const Ajv2020 = createRequire(import.meta.url)('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js').default;
      ajv = new Ajv2020({ allErrors: true, strict: false });
    }
    validate = ajv.compile(schema as object);
    cache.set(key, validate);
  }
  return validate;
}

/** Problems of `value` against `schema`, or an empty list. */
export function jsonSchemaProblems(schema: JsonValue, value: unknown): string[] {
  const validate = jsonSchemaValidator(schema);
  return validate(value) ? [] : (validate.errors ?? []).map((item) => `${item.instancePath || '/'} ${item.message}`);
}
