// Refreshes test/fixtures/argo/workflow.schema.json: the JSON schema of an Argo `Workflow`, cut from Argo Workflows'
// published schema (api/jsonschema/schema.json) down to the definitions a Workflow reaches, without descriptions.
// The plan emitter tests validate the emitted Workflow against it with Ajv.
//
//   node scripts/refresh-argo-schema.mjs            # downloads the schema of VERSION from GitHub
//   node scripts/refresh-argo-schema.mjs FILE       # or cuts a copy of api/jsonschema/schema.json already on disk
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const VERSION = 'v4.1.2';
const SOURCE = `https://raw.githubusercontent.com/argoproj/argo-workflows/${VERSION}/api/jsonschema/schema.json`;
const ROOT_DEFINITION = 'io.argoproj.workflow.v1alpha1.Workflow';
const TARGET = join(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'fixtures', 'argo', 'workflow.schema.json');

async function load(file) {
  if (file !== undefined) return JSON.parse(readFileSync(file, 'utf8'));
  const response = await fetch(SOURCE);
  if (!response.ok) throw new Error(`${SOURCE}: HTTP ${response.status}`);
  return response.json();
}

/** Every definition the root reaches through `$ref`, the root included. */
function reachable(definitions, root) {
  const seen = new Set([root]);
  const walk = (value) => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (value === null || typeof value !== 'object') return;
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string') {
        const name = inner.replace('#/definitions/', '');
        if (!(name in definitions)) throw new Error(`${inner} is not among the schema's definitions`);
        if (!seen.has(name)) {
          seen.add(name);
          walk(definitions[name]);
        }
      } else walk(inner);
    }
  };
  walk(definitions[root]);
  return [...seen].sort();
}

/** The schema without `description` keywords (the property named `description` of an object is kept). */
function withoutDescriptions(value, inProperties = false) {
  if (Array.isArray(value)) return value.map((item) => withoutDescriptions(item));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => inProperties || key !== 'description').map(([key, inner]) => [key, withoutDescriptions(inner, key === 'properties' && !inProperties)]));
}

const schema = await load(process.argv[2]);
if (!schema.definitions?.[ROOT_DEFINITION]) throw new Error(`the schema has no definition ${ROOT_DEFINITION}`);
const names = reachable(schema.definitions, ROOT_DEFINITION);
const cut = {
  $comment: `Argo Workflows ${VERSION}, api/jsonschema/schema.json (github.com/argoproj/argo-workflows): the ${names.length} definitions a Workflow reaches, descriptions removed. Refresh with: node scripts/refresh-argo-schema.mjs`,
  $schema: schema.$schema,
  $ref: `#/definitions/${ROOT_DEFINITION}`,
  definitions: Object.fromEntries(names.map((name) => [name, withoutDescriptions(schema.definitions[name])])),
};
// One definition per line: small diffs when Argo changes one.
const lines = Object.entries(cut.definitions).map(([name, definition]) => `    ${JSON.stringify(name)}: ${JSON.stringify(definition)}`);
writeFileSync(TARGET, `{\n  "$comment": ${JSON.stringify(cut.$comment)},\n  "$schema": ${JSON.stringify(cut.$schema)},\n  "$ref": ${JSON.stringify(cut.$ref)},\n  "definitions": {\n${lines.join(',\n')}\n  }\n}\n`);
console.log(`wrote ${TARGET}: ${names.length} definitions`);
