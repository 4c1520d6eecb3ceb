// A workflow written as JSON is read with JSON.parse only when YAML reads it as the very same value; anything else is
// read as YAML, so its value and its diagnostics stay what they were.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { parseDocument } from 'yaml';
import { plainJsonDocument } from '../../core/compiler/json-source.js';
import { parseSource } from '../../core/compiler/source.js';
import { ROOT } from '../support/cli.js';
import { codeOf } from '../support/errors.js';

const YAML_OPTIONS = { prettyErrors: false, uniqueKeys: true, strict: true, logLevel: 'error' } as const;

/** The value the YAML reading gives, or the code of its first error. */
function yamlReading(text: string): { value: unknown } | { error: string } {
  const document = parseDocument(text, YAML_OPTIONS);
  return document.errors.length > 0 ? { error: document.errors[0]!.code } : { value: document.toJS({ maxAliasCount: -1 }) };
}

/** The workflows of examples/ and the yaml blocks of docs/: documents as people write them. */
function sampleDocuments(): object[] {
  const texts = [
    ...readdirSync(join(ROOT, 'examples')).filter((name) => name.endsWith('.yaml')).map((name) => readFileSync(join(ROOT, 'examples', name), 'utf8')),
    ...readdirSync(join(ROOT, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .flatMap((name) => [...readFileSync(join(ROOT, 'docs', name), 'utf8').matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => match[1]!)),
  ];
  return texts.flatMap((text) => {
    const reading = yamlReading(text);
    return 'value' in reading && reading.value !== null && typeof reading.value === 'object' && !Array.isArray(reading.value) ? [reading.value] : [];
  });
}

describe('workflow documents written as JSON', () => {
  it('reads every sample document, compact, indented, tab-indented or with CRLF lines, as the YAML reading does', () => {
    const documents = sampleDocuments();
    expect(documents.length).to.be.greaterThan(20);
    for (const document of documents) {
      for (const text of [JSON.stringify(document), JSON.stringify(document, null, 2), JSON.stringify(document, null, '\t'), JSON.stringify(document, null, 1).replace(/\n/g, '\r\n')]) {
        const fast = plainJsonDocument(text);
        expect(fast, text.slice(0, 80)).to.not.equal(undefined);
        expect(fast).to.deep.equal((yamlReading(text) as { value: unknown }).value);
      }
    }
  });

  it('gives the same numbers, escapes and keys as the YAML reading', () => {
    const text = '{"__proto__": {"a": -0}, "n": [12345678901234567890, 1e400, 1.5E+3, 1e-7, 0e0], "s": "\\u00e9\\ud83d\\ude00\\/\\b\\f\\n\\r\\t\\"\\\\", "0": "", "k\\"": {"x": [[[]]]}}';
    const fast = plainJsonDocument(text) as Record<string, unknown>;
    const reading = (yamlReading(text) as { value: Record<string, unknown> }).value;
    expect(fast).to.deep.equal(reading);
    expect(Object.keys(fast)).to.deep.equal(Object.keys(reading));
    expect(Object.is((fast['__proto__'] as { a: number }).a, -0)).to.equal(true);
  });

  it('leaves to the YAML reading what it would read differently or refuse', () => {
    const deep = `${'{"a":'.repeat(64)}1${'}'.repeat(64)}`;
    for (const text of [
      '{"a": 1, "a": 2}',
      '{"x": {"a\\"": 1, "b": "\\\\", "a\\"": 2}}',
      '{"a": 1}\n---\n',
      '{\r"a": 1}',
      '\ufeff{"a": 1}',
      '{"a": "\u0085"}',
      '{"a": "\u2028"}',
      '{"a": 1,}',
      '[{"a": 1}]',
      '"a"',
      deep,
    ]) {
      expect(plainJsonDocument(text), JSON.stringify(text).slice(0, 60)).to.equal(undefined);
    }
    // Just under the depth the YAML reading refuses, a document is still read as JSON.
    expect(plainJsonDocument(`${'{"a":'.repeat(63)}1${'}'.repeat(63)}`)).to.not.equal(undefined);
  });

  it('still refuses duplicate keys as YAML syntax, at their line', () => {
    const text = '{\n  "apiVersion": "agentctl.dev/v1",\n  "kind": "Workflow",\n  "kind": "Workflow"\n}\n';
    expect(codeOf(() => parseSource('dup.json', text))).to.equal('AGENTCTL_E_YAML_SYNTAX');
  });

  it('locates a path of a JSON document at its line and column', () => {
    const text = '{\n  "apiVersion": "agentctl.dev/v1",\n  "spec": {\n    "tasks": [\n      {"id": "a", "uses": "x"}\n    ]\n  }\n}\n';
    const source = parseSource('located.json', text);
    expect(source.value).to.deep.equal(JSON.parse(text));
    expect(source.locate(['spec', 'tasks', 0, 'uses'])).to.deep.equal({ line: 5, column: 27 });
    expect(source.locate(['spec', 'tasks', 0, 'uses'], { key: true })).to.deep.equal({ line: 5, column: 19 });
  });
});
