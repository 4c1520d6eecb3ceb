// The CLI's document kinds: each one registered in sdk/documents is named in docs/cli.md's table of documents, and
// every schema compiles as JSON Schema 2020-12 with its envelope.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { cliDocumentJsonSchema, cliDocumentKinds } from '@agentctl/sdk/documents';
import { jsonSchemaValidator, type JsonValue } from '@agentctl/sdk';
import { ROOT } from '../support/cli.js';

describe('CLI document kinds', () => {
  it('docs/cli.md names every kind in its table of documents', () => {
    const text = readFileSync(join(ROOT, 'docs', 'cli.md'), 'utf8');
    const table = text.slice(text.indexOf('### The JSON document of each command'), text.indexOf('## Global options'));
    expect(cliDocumentKinds().filter((kind) => !table.includes(`\`${kind}\``))).to.deep.equal([]);
  });

  it('every kind\'s JSON Schema compiles with Ajv 2020 and refuses a document of another kind', () => {
    for (const kind of cliDocumentKinds().filter((name) => name !== 'Error' && name !== 'StreamEvent')) {
      const validate = jsonSchemaValidator(cliDocumentJsonSchema(kind) as JsonValue);
      const envelope = { apiVersion: 'agentctl.dev/cli/v1', kind, ok: true, diagnostics: [] };
      expect(validate({ ...envelope, kind: 'NotAKind', data: {} }), kind).to.equal(false);
    }
  });
});
