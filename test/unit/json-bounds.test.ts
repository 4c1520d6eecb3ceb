// The bounds JSON answers from outside are read with (64 levels, as workflow documents), and the serializer every
// digest is taken with, which must write any value the ledger may hold without overflowing the stack.
import { expect } from 'chai';
import { canonicalJson, JsonDepthError, MAX_JSON_DEPTH, nestsDeeperThan, parseJsonAnswer, type JsonValue } from '@agentctl/sdk';

/** The recursive definition canonicalJson had: the iterative one must write exactly the same text. */
function reference(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
  return `{${Object.keys(value)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${reference(value[key]!)}`)
    .join(',')}}`;
}

const nested = (depth: number, inner: JsonValue = 1): JsonValue => {
  let value = inner;
  for (let level = 0; level < depth; level += 1) value = level % 2 === 0 ? [value] : { k: value };
  return value;
};

describe('JSON bounds', () => {
  it('canonicalJson writes what the recursive definition wrote, on random values', () => {
    let seed = 7;
    const random = (below: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % below;
    };
    const scalars: JsonValue[] = [null, true, false, 0, -1.5, 1e21, '', 'é"\\\n', '🔑'];
    const make = (depth: number): JsonValue => {
      const choice = depth > 4 ? 0 : random(4);
      if (choice <= 1) return scalars[random(scalars.length)]!;
      if (choice === 2) return Array.from({ length: random(4) }, () => make(depth + 1));
      return Object.fromEntries(Array.from({ length: random(4) }, () => [['b', 'a', 'ä', '10', '9', '__proto__'][random(6)]!, make(depth + 1)]));
    };
    for (let round = 0; round < 2000; round += 1) {
      const value = make(0);
      expect(canonicalJson(value)).to.equal(reference(value));
    }
    expect(canonicalJson({ b: [1, { d: null, c: 'x' }], a: {} })).to.equal('{"a":{},"b":[1,{"c":"x","d":null}]}');
  });

  it('canonicalJson writes a value nested 100,000 levels deep without overflowing the stack', () => {
    expect(canonicalJson(nested(100_000))).to.equal(`${'{"k":['.repeat(50_000)}1${']}'.repeat(50_000)}`);
  });

  it(`nestsDeeperThan counts arrays and objects: ${MAX_JSON_DEPTH} levels pass, one more does not`, () => {
    expect(MAX_JSON_DEPTH).to.equal(64);
    expect(nestsDeeperThan(nested(64), 64)).to.equal(false);
    expect(nestsDeeperThan(nested(65), 64)).to.equal(true);
    expect(nestsDeeperThan(nested(65, 'x'), 65)).to.equal(false);
    expect(nestsDeeperThan('text', 0)).to.equal(false);
    expect(nestsDeeperThan(nested(1_000_000), 64)).to.equal(true);
  });

  it('parseJsonAnswer refuses an answer nested more than 64 levels with a JsonDepthError, a SyntaxError', () => {
    expect(parseJsonAnswer(`${'['.repeat(64)}${']'.repeat(64)}`)).to.be.an('array');
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    expect(() => parseJsonAnswer(deep)).to.throw(JsonDepthError, 'the JSON nests more than 64 levels deep');
    expect(() => parseJsonAnswer(deep)).to.throw(SyntaxError);
    expect(() => parseJsonAnswer('{"a":')).to.throw(SyntaxError, 'JSON');
    expect(() => parseJsonAnswer('{"a":')).to.not.throw(JsonDepthError);
    expect(parseJsonAnswer('[[1]]', 2)).to.deep.equal([[1]]);
    expect(() => parseJsonAnswer('[[1]]', 1)).to.throw(JsonDepthError, 'more than 1 levels');
  });
});
