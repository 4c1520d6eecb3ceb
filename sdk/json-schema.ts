// JSON Schema 2020-12 validation, compiled once per schema with Ajv (loaded on first use): a task's outputSchema, an
// extension's input and output schemas.
import { createRequire } from 'node:module';
import type { Ajv as AjvInstance, ValidateFunction } from 'ajv';
import type { JsonValue } from './json.js';

/** Ajv's options; scripts/build-json-schema.mjs generates the meta-schema's validator with the same ones. */
const AJV_OPTIONS = { allErrors: true, strict: false } as const;
const META_SCHEMA = 'https://json-schema.org/draft/2020-12/schema';

let ajv: AjvInstance | undefined;
const cache = new Map<string, ValidateFunction>();

type Ajv2020Class = typeof import('ajv/dist/2020.js').default;

/** A file the build writes next to this one (scripts/build-json-schema.mjs), or undefined where there is none. */
function built<T>(require: NodeJS.Require, file: string): T | undefined {
  try {
    return require(file) as T;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' && (error as Error).message.includes(file)) return undefined;
    throw error;
  }
}

/**
 * Ajv as the build prepared it: its 2020-12 class in one file (dist/ajv-2020.cjs), and the meta-schema's validator
 * precompiled (dist/json-schema-meta.cjs) in place of the one Ajv would compile on its first schema: the same code,
 * so the same verdicts and errors, without the cost. Where those files are absent (the SDK's sources run without a
 * build), the installed ajv is loaded and compiles the meta-schema itself.
 */
function createAjv(): AjvInstance {
  const require = createRequire(import.meta.url);
  const Ajv2020 = built<Ajv2020Class>(require, './ajv-2020.cjs') ?? (require('ajv/dist/2020.js') as Ajv2020Class);
  const instance = new Ajv2020(AJV_OPTIONS);
  const precompiled = built<{ metaSchema2020: ValidateFunction }>(require, './json-schema-meta.cjs')?.metaSchema2020;
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
