// JSON Schema 2020-12 validation, compiled once per schema with Ajv (loaded on first use): a task's outputSchema, an
// extension's input and output schemas.
import { createRequire } from 'node:module';
import type { Ajv as AjvInstance, ValidateFunction } from 'ajv';
import type { JsonValue } from './json.js';

/** Ajv's options; scripts/precompile-meta-schema.mjs generates the meta-schema's validator with the same ones. */
const AJV_OPTIONS = { allErrors: true, strict: false } as const;
const META_SCHEMA = 'https://json-schema.org/draft/2020-12/schema';

let ajv: AjvInstance | undefined;
const cache = new Map<string, ValidateFunction>();

/**
 * Ajv with the meta-schema's validator precompiled at build time (dist/json-schema-meta.cjs) in place of the one it
 * would compile on its first schema: the same generated code, so the same verdicts and errors, without the cost.
 * Where that file is absent (the SDK's sources run without a build), Ajv compiles the meta-schema itself.
 */
function createAjv(): AjvInstance {
  const require = createRequire(import.meta.url);
  const Ajv2020 = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js').default;
  const instance = new Ajv2020(AJV_OPTIONS);
  let precompiled: ValidateFunction | undefined;
  try {
    precompiled = (require('./json-schema-meta.cjs') as { metaSchema2020: ValidateFunction }).metaSchema2020;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
  }
  const meta = instance.schemas[META_SCHEMA];
  if (precompiled && meta && !meta.validate) meta.validate = precompiled;
  return instance;
}

/** A validator for `schema`; throws with Ajv's message when the schema itself is invalid. */
export function jsonSchemaValidator(schema: JsonValue): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = cache.get(key);
  if (!validate) {
    ajv ??= createAjv();
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
