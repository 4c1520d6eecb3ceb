// The SDK loads Ajv from one file the build bundles (sdk/dist/ajv-2020.cjs) and checks schemas against the 2020-12
// meta-schema with a validator generated at build time (sdk/dist/json-schema-meta.cjs) instead of compiling the
// meta-schema on first use. These cases hold both to the installed Ajv: every schema of the corpus gets the same
// verdict and the same errors.
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { jsonSchemaValidator, type JsonValue } from '@agentctl/sdk';
import { ROOT } from '../support/cli.js';

const require = createRequire(import.meta.url);
const META_SCHEMA = 'https://json-schema.org/draft/2020-12/schema';
const PRECOMPILED = join(ROOT, 'sdk', 'dist', 'json-schema-meta.cjs');
const BUNDLED_AJV = join(ROOT, 'sdk', 'dist', 'ajv-2020.cjs');

type Validator = ((data: unknown) => boolean) & { errors?: unknown[] | null };

/** Ajv as the SDK configures it, compiling the meta-schema itself. */
function ownAjv() {
  const Ajv2020 = require('ajv/dist/2020.js').default as new (options: object) => { compile(schema: unknown): Validator; getSchema(key: string): Validator | undefined };
  return new Ajv2020({ allErrors: true, strict: false });
}

const VALID: JsonValue[] = [
  {},
  true,
  false,
  { type: 'object', properties: { a: { type: 'string', minLength: 1 } }, required: ['a'], additionalProperties: false },
  { $defs: { n: { type: 'integer', minimum: 0 } }, type: 'array', items: { $ref: '#/$defs/n' }, maxItems: 3 },
  { $schema: META_SCHEMA, $id: 'https://example.test/s', $dynamicAnchor: 'node', type: 'object', properties: { next: { $dynamicRef: '#node' } } },
  { allOf: [{ properties: { a: true } }], unevaluatedProperties: false, prefixItems: [{ const: 1 }], contains: { type: 'number' }, minContains: 1 },
  { if: { properties: { k: { const: 'x' } } }, then: { required: ['x'] }, else: { not: { required: ['x'] } }, dependentRequired: { a: ['b'] } },
  { type: ['string', 'null'], enum: ['a', null], contentMediaType: 'application/json', contentSchema: { type: 'object' } },
];

const INVALID: JsonValue[] = [
  { type: 'nope' },
  { properties: 1 },
  { minimum: 'x', maxLength: -1, pattern: 3, required: 'a' },
  { items: { type: 5 } },
  { properties: { a: { properties: { b: { type: 'q', enum: 'x' } } } } },
  { allOf: [] },
  { type: ['string', 'string'] },
  { $ref: 5 },
  { $defs: { x: { minItems: 1.5 } } },
  { dependentRequired: { a: [1] } },
  { contentSchema: { type: 'x' } },
  { $schema: META_SCHEMA, additionalProperties: { type: {} } },
  { prefixItems: {}, unevaluatedItems: 'no', $dynamicAnchor: '1bad' },
];

describe('the JSON Schema validation the build prepares (bundled Ajv, precompiled meta-schema)', () => {
  it('is built with the SDK and validates the corpus exactly as the meta-schema Ajv compiles', () => {
    expect(existsSync(PRECOMPILED), 'npm run build writes sdk/dist/json-schema-meta.cjs').to.equal(true);
    expect(existsSync(BUNDLED_AJV), 'npm run build writes sdk/dist/ajv-2020.cjs').to.equal(true);
    const precompiled = (require(PRECOMPILED) as { metaSchema2020: Validator }).metaSchema2020;
    const compiled = ownAjv().getSchema(META_SCHEMA)!;
    for (const schema of [...VALID, ...INVALID]) {
      const verdict = precompiled(schema);
      expect(verdict, JSON.stringify(schema)).to.equal(compiled(schema));
      expect(precompiled.errors ?? null, JSON.stringify(schema)).to.deep.equal(compiled.errors ?? null);
    }
  });

  it('leaves the SDK\'s verdicts and messages on schemas, and its validators\' errors on values, as Ajv\'s own', () => {
    const ajv = ownAjv();
    const outcome = (compile: () => Validator) => {
      try {
        const validate = compile();
        return { ok: [null, 0, 'a', [1, 'x'], { a: '' }, { k: 'x' }].map((value) => [validate(value), validate.errors ?? null]) };
      } catch (error) {
        return { thrown: (error as Error).message };
      }
    };
    // Ajv remembers a schema object it has seen, valid or not: each compile is given a copy of its own.
    for (const schema of [...VALID, ...INVALID]) {
      const sdk = outcome(() => jsonSchemaValidator(structuredClone(schema)));
      expect(sdk, JSON.stringify(schema)).to.have.property(VALID.includes(schema) ? 'ok' : 'thrown');
      expect(sdk, JSON.stringify(schema)).to.deep.equal(outcome(() => ajv.compile(structuredClone(schema))));
    }
    expect(outcome(() => jsonSchemaValidator({ type: 'nope' })).thrown).to.match(/^schema is invalid: data\/type must be equal to one of the allowed values/);
  });
});
