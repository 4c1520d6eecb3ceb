// The container acceptance gate's own logic where it is pure: how it reads one document from a stream, and how it
// reports its steps (scripts/acceptance/). The gate itself runs with `npm run acceptance:container`.
import { expect } from 'chai';
import { cliDocumentSchema } from '@agentctl/sdk/documents';
import { parseOneDocument } from '../../scripts/acceptance/documents.mjs';
import { stepLog, summaryLine } from '../../scripts/acceptance/steps.mjs';

const VERSION = { apiVersion: 'agentctl.dev/cli/v1', kind: 'Version', ok: true, data: { version: '0.1.0' }, diagnostics: [] };
const line = (document: unknown) => `${JSON.stringify(document)}\n`;
const read = (text: string, kind = 'Version') => parseOneDocument(text, { kind, schemaFor: cliDocumentSchema });

describe('container acceptance gate: one document per stream', () => {
  // A Version document as `agentctl version --output json` prints it, checked against the real schema.
  const real = line({ ...VERSION, data: { version: '0.1.0', rust: false, machineOutput: 'agentctl.dev/cli/v1', cliApiVersion: 'agentctl.dev/cli/v1', databaseSchemaVersion: 7, referenceFormatVersion: '0.3.0', node: '20.20.2' } });

  it('returns the one single-line document of the expected kind that matches its schema', () => {
    expect(read(real).data.version).to.equal('0.1.0');
  });

  const refused: [string, string, RegExp][] = [
    ['an empty stream', '', /stdout is empty; expected one Version document/],
    ['a document without its newline', real.slice(0, -1), /does not end with a newline/],
    ['two documents', real + real, /holds 2 lines; expected exactly one JSON document/],
    ['progress before the document', `running...\n${real}`, /holds 2 lines/],
    ['a blank line after the document', `${real}\n`, /holds 2 lines/],
    ['text that is not JSON', 'ok\n', /is not one JSON document/],
    ['a JSON array', '[1]\n', /JSON that is not an object/],
    ['another API version', line({ ...VERSION, apiVersion: 'agentctl.dev/cli/v0' }), /apiVersion "agentctl.dev\/cli\/v0", not agentctl.dev\/cli\/v1/],
    ['another kind', line({ ...VERSION, kind: 'RunList' }), /is a "RunList", not a Version/],
    ['a document its schema refuses', line({ ...VERSION, ok: 'yes' }), /Version does not match its published schema/],
  ];
  for (const [name, text, message] of refused) {
    it(`refuses ${name}`, () => {
      expect(() => read(text)).to.throw(message);
    });
  }

  it('names the stream it read, and refuses a kind that has no published schema', () => {
    expect(() => parseOneDocument('', { kind: 'Error', schemaFor: cliDocumentSchema, stream: 'stderr' })).to.throw(/^stderr is empty/);
    expect(() => read(line({ ...VERSION, kind: 'Nothing' }), 'Nothing')).to.throw('Nothing has no published schema');
  });
});

describe('container acceptance gate: steps', () => {
  it('prints each step with PASS or FAIL, its duration and why it failed; a failure does not stop the next step', async () => {
    const printed: string[] = [];
    const log = stepLog((text) => printed.push(text));
    expect(await log.step('first', () => undefined)).to.equal(true);
    expect(await log.step('second', () => Promise.reject(new Error('the report differs')))).to.equal(false);
    expect(await log.step('third', async () => undefined)).to.equal(true);
    expect(printed.map((text) => text.replace(/\(\d+\.\d s\)/, '(T)'))).to.deep.equal(['PASS  first  (T)', 'FAIL  second  (T)', '      the report differs', 'PASS  third  (T)']);
    expect(log.summary()).to.equal('2 passed, 1 failed');
    expect(log.failed()).to.equal(1);
  });

  it('counts an empty run as 0 passed, 0 failed', () => {
    expect(summaryLine([])).to.equal('0 passed, 0 failed');
  });
});
