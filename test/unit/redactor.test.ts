import { expect } from 'chai';
import { Redactor } from '../../core/runner/secrets.js';

describe('redactor', () => {
  it('replaces every occurrence, longest secret first', () => {
    const redactor = new Redactor();
    redactor.add('abc');
    redactor.add('abcdef');
    expect(redactor.redact('x abcdef y abc z')).to.equal('x [REDACTED] y [REDACTED] z');
  });

  it('covers the JSON-escaped form of a value', () => {
    const redactor = new Redactor();
    redactor.add('a"b\\c');
    expect(redactor.redact(JSON.stringify({ v: 'a"b\\c' }))).to.equal('{"v":"[REDACTED]"}');
  });

  it('ignores empty values and hides a secret cut at the end of truncated output', () => {
    const redactor = new Redactor();
    redactor.add('');
    redactor.add('supersecretvalue');
    expect(redactor.size).to.equal(1);
    expect(redactor.redactTruncated('output ends with supersec')).to.equal('output ends with [REDACTED]');
    expect(redactor.redactTruncated('ends with sup')).to.equal('ends with sup');
  });

  it('merges overlapping secrets so no piece of either survives', () => {
    const redactor = new Redactor();
    redactor.add('abcd1234');
    redactor.add('1234wxyz');
    expect(redactor.redact('x abcd1234wxyz y')).to.equal('x [REDACTED] y');
  });

  it('redacts values structurally: the result stays valid JSON even for a one-character secret', () => {
    const redactor = new Redactor();
    redactor.add('1');
    redactor.add('a"b');
    const value = { n: 1, text: 'v1 and a"b', list: ['1'], key1: true };
    expect(redactor.redactValue(value)).to.deep.equal({ n: 1, text: 'v[REDACTED] and [REDACTED]', list: ['[REDACTED]'], 'key[REDACTED]': true });
  });
});
