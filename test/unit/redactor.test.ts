import { expect } from 'chai';
import { formsOf, MIN_SECRET_LENGTH, Redactor, tooShortToRedact } from '../../core/runner/redactor.js';
import { PatternMatcher } from '../../core/runner/pattern-matcher.js';

const redactorWith = (...values: string[]) => {
  const redactor = new Redactor();
  for (const value of values) redactor.add(value);
  return redactor;
};

/** What Python's json.dumps prints for a string (ensure_ascii, the default), without the quotes. */
const pythonJson = (text: string, upper = false) =>
  JSON.stringify(text)
    .slice(1, -1)
    .replace(/[^\x20-\x7e]/g, (character) => {
      const hex = character.charCodeAt(0).toString(16).padStart(4, '0');
      return `\\u${upper ? hex.toUpperCase() : hex}`;
    });

describe('redactor', () => {
  it('replaces every occurrence, longest secret first', () => {
    const redactor = redactorWith('abcd', 'abcdef');
    expect(redactor.redact('x abcdef y abcd z')).to.equal('x [REDACTED] y [REDACTED] z');
  });

  it('covers the JSON-escaped form of a value', () => {
    const redactor = redactorWith('a"b\\c');
    expect(redactor.redact(JSON.stringify({ v: 'a"b\\c' }))).to.equal('{"v":"[REDACTED]"}');
  });

  it('merges overlapping secrets so no piece of either survives', () => {
    const redactor = redactorWith('abcd1234', '1234wxyz');
    expect(redactor.redact('x abcd1234wxyz y')).to.equal('x [REDACTED] y');
  });

  it('merges a long match that reaches back over earlier separate matches', () => {
    const redactor = redactorWith('ab12', 'de34', 'ab12cde34');
    expect(redactor.redact('x ab12cde34 y ab12 de34')).to.equal('x [REDACTED] y [REDACTED] [REDACTED]');
  });

  describe('the forms of a value', () => {
    it('a value ending in a newline is redacted when printed trimmed', () => {
      const redactor = redactorWith('tok3n-value\n');
      expect(redactor.redact('v=tok3n-value;')).to.equal('v=[REDACTED];');
      expect(redactor.redact('tok3n-value\n')).to.equal('[REDACTED]');
    });

    it('a value with surrounding whitespace is redacted printed as it is, trimmed, or with \\r\\n', () => {
      const redactor = redactorWith('\t s3cr3t-value  \n');
      expect(redactor.redact('[s3cr3t-value]')).to.equal('[[REDACTED]]');
      expect(redactor.redact('<\t s3cr3t-value  \r\n>')).to.equal('<[REDACTED]>');
    });

    it('a multi-line value is redacted whole (with \\n or \\r\\n endings) and line by line', () => {
      const pem = '-----BEGIN TEST KEY-----\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu\nKUpRKfFLfRYC9AIKjbJTWit+CqvjWYzvQwECAwEAAQ==\n-----END TEST KEY-----\n';
      const redactor = redactorWith(pem);
      expect(redactor.redact(`a ${pem} b`)).to.equal('a [REDACTED] b');
      expect(redactor.redact(`a ${pem.replace(/\n/g, '\r\n')} b`)).to.equal('a [REDACTED] b');
      const lineByLine = pem
        .trim()
        .split('\n')
        .map((line) => `line: ${line}\r\n`)
        .join('');
      expect(redactor.redact(lineByLine)).to.equal('line: [REDACTED]\r\n'.repeat(4));
    });

    it(`a line shorter than ${MIN_SECRET_LENGTH} characters is redacted only as part of the whole value`, () => {
      const redactor = redactorWith('ab\nlong-line-1\n  xyz  \n');
      expect(redactor.redact('ab / long-line-1 / xyz')).to.equal('ab / [REDACTED] / xyz');
      expect(redactor.redact('ab\nlong-line-1\n  xyz')).to.equal('[REDACTED]');
      expect(formsOf('ab\nlong-line-1\n  xyz  \n')).not.to.include('ab').and.not.to.include('xyz');
    });

    it('a non-ASCII value is redacted in the \\uXXXX form Python json.dumps prints (surrogate pairs for astral characters)', () => {
      const secret = 'pässwörd-🔑-Ω';
      const redactor = redactorWith(secret);
      expect(pythonJson(secret)).to.equal('p\\u00e4ssw\\u00f6rd-\\ud83d\\udd11-\\u03a9');
      expect(redactor.redact(`{"password": "${pythonJson(secret)}"}`)).to.equal('{"password": "[REDACTED]"}');
      expect(redactor.redact(`{"password": "${pythonJson(secret, true)}"}`)).to.equal('{"password": "[REDACTED]"}');
      // That JSON printed inside another JSON string: the backslashes are doubled.
      expect(redactor.redact(JSON.stringify(`"${pythonJson(secret)}"`))).to.equal('"\\"[REDACTED]\\""');
      expect(redactor.redact(`raw ${secret}`)).to.equal('raw [REDACTED]');
    });
  });

  describe('the double-escaped JSON form', () => {
    it('a non-ASCII value with quotes, backslashes and a newline is redacted in JSON written inside a JSON string', () => {
      const secret = 'tö"k\\en\nline-2';
      const redactor = redactorWith(secret);
      const twice = JSON.stringify({ body: JSON.stringify({ key: secret }) });
      expect(redactor.redact(twice)).to.equal(JSON.stringify({ body: JSON.stringify({ key: '[REDACTED]' }) }));
      expect(redactor.redact(twice)).not.to.contain('line-2');
      expect(formsOf(secret)).to.include(JSON.stringify(JSON.stringify(secret).slice(1, -1)).slice(1, -1));
    });
  });

  describe('values too short to redact', () => {
    it(`a value under ${MIN_SECRET_LENGTH} characters, surrounding whitespace ignored, is too short`, () => {
      for (const value of ['', 'a', 'abc', '  ab \n', '\t\n', '🔑🔑🔑']) expect(tooShortToRedact(value), JSON.stringify(value)).to.equal(true);
      for (const value of ['abcd', ' abcd ', '🔑🔑🔑🔑', '1234']) expect(tooShortToRedact(value), JSON.stringify(value)).to.equal(false);
    });

    it('the redactor ignores such a value instead of replacing it inside unrelated text', () => {
      const redactor = redactorWith('', 'x', 'abc');
      expect(redactor.size).to.equal(0);
      expect(redactor.redact('executable abc')).to.equal('executable abc');
    });
  });

  describe('output cut short', () => {
    it('hides any end of the text that begins a secret, however short', () => {
      const redactor = redactorWith('supersecretvalue');
      expect(redactor.redactTruncated('output ends with supersec')).to.equal('output ends with [REDACTED]');
      expect(redactor.redactTruncated('ends with s')).to.equal('ends with [REDACTED]');
      expect(redactor.redactTruncated('ends with supersecretvalue')).to.equal('ends with [REDACTED]');
      expect(redactor.redactTruncated('ends with x')).to.equal('ends with x');
      // Text that is not cut keeps its end.
      expect(redactor.redact('ends with supersec')).to.equal('ends with supersec');
    });

    it('hides the beginning of a line of a multi-line value and of an escaped form', () => {
      const redactor = redactorWith('first-line\nsecond-line-ü');
      expect(redactor.redactTruncated('log: second-li')).to.equal('log: [REDACTED]');
      expect(redactor.redactTruncated('{"v": "second-line-\\u00')).to.equal('{"v": "[REDACTED]');
    });
  });

  describe('text shortened for a message: redacted, then cut, then an end that begins a secret hidden', () => {
    const SECRET = 'sk-Q7vLm2Zp9T4hW8nK';
    const QUOTED = 'pa"ss\\word-9Xq';
    /** What is left of a shortened text once its marks are taken out: only the padding may remain. */
    const leftover = (text: string) => text.replaceAll('[REDACTED]', '').replace(/…$/, '');

    it('leaves no piece of a secret at any offset across the cut, for each limit agentctl quotes at (80, 200, 300)', () => {
      const redactor = redactorWith(SECRET, QUOTED);
      for (const limit of [80, 200, 300]) {
        for (const printed of [SECRET, JSON.stringify(QUOTED).slice(1, -1)]) {
          for (let offset = limit - printed.length - 2; offset <= limit + 2; offset += 1) {
            const text = `${'.'.repeat(offset)}${printed}${' '.repeat(400)}`;
            const shortened = redactor.shorten(text, limit);
            expect(shortened.length, `limit ${limit}, offset ${offset}`).to.be.at.most(limit + 1);
            expect(shortened.endsWith('…')).to.equal(true);
            expect(leftover(shortened), `limit ${limit}, offset ${offset}: ${shortened.slice(-20)}`).to.match(/^[. ]*$/);
          }
        }
        // Why the order matters: cut first, the 10 characters before the limit escape redaction.
        const early = `${'.'.repeat(limit - 10)}${SECRET}`;
        expect(redactor.redact(early.slice(0, limit))).to.contain(SECRET.slice(0, 10));
        expect(redactor.shorten(early, limit)).to.not.contain(SECRET.slice(0, 2));
      }
    });

    it('never splits a [REDACTED] mark or a surrogate pair, hides a cut secret, and leaves short text whole', () => {
      const redactor = redactorWith('secret-value');
      expect(redactor.shorten('abc secret-value def', 8)).to.equal('abc …');
      expect(redactor.shorten('abc secret-value def', 14)).to.equal('abc [REDACTED]…');
      expect(redactor.shorten('ab🔑cd', 3)).to.equal('ab…');
      expect(redactor.shorten('value: secret-val and more', 17)).to.equal('value: [REDACTED]…');
      expect(redactor.shorten('abc secret-value', 100)).to.equal('abc [REDACTED]');
      expect(new Redactor().shorten('a'.repeat(10), 4)).to.equal('aaaa…');
    });

    it('is what text(..., { limit }) gives plugins; truncated and plain redaction are unchanged', () => {
      const redactor = redactorWith('secret-value');
      expect(redactor.text('x secret-value y', { limit: 5 })).to.equal(redactor.shorten('x secret-value y', 5));
      expect(redactor.text('ends secret-v', { truncated: true })).to.equal('ends [REDACTED]');
      expect(redactor.text('ends secret-v')).to.equal('ends secret-v');
    });
  });

  describe('structure', () => {
    it('redacts string values only: keys, numbers and structure are kept, so the result stays valid JSON', () => {
      const redactor = redactorWith('exec', 'code', 'a"b\\');
      const value = { executable: '/usr/bin/exec', code: 'code', n: 1234, list: ['exec', 'a"b\\'], nested: { operation: 'process.exec', key1: true } };
      const redacted = redactor.redactValue(value);
      expect(redacted).to.deep.equal({
        executable: '/usr/bin/[REDACTED]',
        code: '[REDACTED]',
        n: 1234,
        list: ['[REDACTED]', '[REDACTED]'],
        nested: { operation: 'process.[REDACTED]', key1: true },
      });
      expect(JSON.parse(JSON.stringify(redacted))).to.deep.equal(redacted);
    });

    it('copies a value nested 100,000 levels deep without overflowing the stack, keys in order', () => {
      const redactor = redactorWith('secret-value');
      let value: unknown = JSON.parse('{"__proto__":"kept","b":"secret-value","a":1}');
      for (let depth = 0; depth < 100_000; depth += 1) value = [value];
      let inner = redactor.redactValue(value) as unknown;
      for (let depth = 0; depth < 100_000; depth += 1) inner = (inner as unknown[])[0];
      expect(Object.keys(inner as object)).to.deep.equal(['__proto__', 'b', 'a']);
      expect(Object.getPrototypeOf(inner)).to.equal(Object.prototype);
      expect(inner).to.deep.include({ b: '[REDACTED]', a: 1 });
    });
  });

  describe('linear time', () => {
    const MiB = 1024 * 1024;

    it('16 MiB of one character with a secret of that character is one [REDACTED]', () => {
      const redactor = redactorWith('aaaa', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab', 'aaab');
      const flood = 'a'.repeat(16 * MiB);
      expect(redactor.redact(flood)).to.equal('[REDACTED]');
      expect(redactor.redactTruncated(`${flood}b`)).to.equal('[REDACTED]');
      expect(redactor.redact(`x${flood}x`)).to.equal('x[REDACTED]x');
    });

    it('16 MiB of near misses is returned unchanged', () => {
      const redactor = redactorWith('aaaab');
      const flood = 'aaaac'.repeat((16 * MiB) / 8);
      expect(redactor.redact(flood)).to.equal(flood);
    });
  });
});

describe('pattern matcher', () => {
  /** The obvious quadratic reference: every occurrence of every pattern, merged when overlapping or adjacent. */
  function naive(text: string, patterns: string[], tail: boolean): [number, number][] {
    const covered: [number, number][] = [];
    for (const pattern of patterns) for (let at = text.indexOf(pattern); at >= 0; at = text.indexOf(pattern, at + 1)) covered.push([at, at + pattern.length]);
    if (tail) {
      for (let length = text.length; length > 0; length -= 1) {
        if (patterns.some((pattern) => pattern.startsWith(text.slice(text.length - length)))) {
          covered.push([text.length - length, text.length]);
          break;
        }
      }
    }
    covered.sort((a, b) => a[0] - b[0]);
    const merged: [number, number][] = [];
    for (const [start, end] of covered) {
      const last = merged[merged.length - 1];
      if (last && start <= last[1]) last[1] = Math.max(last[1], end);
      else merged.push([start, end]);
    }
    return merged;
  }

  it('finds exactly what the quadratic reference finds, on random texts and patterns', () => {
    let seed = 42;
    const random = (below: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % below;
    };
    const word = (length: number) => Array.from({ length }, () => 'abc'[random(3)]).join('');
    for (let round = 0; round < 500; round += 1) {
      const patterns = Array.from({ length: 1 + random(4) }, () => word(1 + random(5)));
      const text = word(random(40));
      const matcher = new PatternMatcher(patterns);
      for (const tail of [false, true]) {
        const { starts, ends } = matcher.ranges(text, tail);
        expect(starts.map((start, index) => [start, ends[index]]), `${JSON.stringify(patterns)} in ${text} (tail ${tail})`).to.deep.equal(naive(text, patterns, tail));
      }
    }
  });

  it('handles a node with many children and characters outside the Basic Multilingual Plane', () => {
    const patterns = [...'abcdefghijklmnopqrstuvwxyz'].map((letter) => `x${letter}yz`).concat(['🔑key']);
    const matcher = new PatternMatcher(patterns);
    expect(matcher.ranges('.xqyz.xzyz.🔑key.xq')).to.deep.equal({ starts: [1, 6, 11], ends: [5, 10, 16] });
  });
});
