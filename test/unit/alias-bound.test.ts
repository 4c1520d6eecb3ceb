// The lower bound read from the text: it refuses alias bombs before parsing, and never more than the exact check.
import { expect } from 'chai';
import { parseDocument } from 'yaml';
import { expansionPassesAt } from '../../core/compiler/alias-bound.js';
import { checkExpansion } from '../../core/compiler/expansion.js';

const LIMIT = 4 * 1024 * 1024;

/** The exact size the parsed document expands to, as the exact check measures it; undefined if yaml refuses it. */
function exactBytes(text: string): number | undefined {
  const document = parseDocument(text, { prettyErrors: false, uniqueKeys: true, strict: true, logLevel: 'error' });
  if (document.errors.length > 0) return undefined;
  try {
    return checkExpansion(document, Number.MAX_SAFE_INTEGER, 1000).bytes;
  } catch {
    return undefined;
  }
}

/** A document of about 1 MiB: one 1,000-character anchor and rows of 20 aliases to it. */
function megabyteBomb(): string {
  const lines = ['spec:', '  vars:', `    a: &a "${'x'.repeat(1000)}"`, '    b:'];
  const row = `      - [${Array.from({ length: 20 }, () => '*a').join(', ')}]`;
  const rows = Math.floor((1024 * 1024 - 1200) / (row.length + 1));
  for (let index = 0; index < rows; index += 1) lines.push(row);
  return `${lines.join('\n')}\n`;
}

describe('alias expansion bound', () => {
  it('refuses a 1 MiB alias bomb, and a billion laughs, at the alias that passes the limit', () => {
    const bomb = megabyteBomb();
    const offset = expansionPassesAt(bomb, LIMIT)!;
    expect(offset).to.be.a('number');
    expect(bomb.slice(offset, offset + 2)).to.equal('*a');
    // 1,002 bytes per alias, after the anchored string's own 1,002 and 18 for the keys: the 4,185th alias passes 4 MiB.
    expect(bomb.slice(0, offset).split('*a').length - 1).to.equal(4184);
    const laughs = ['l0: &l0 "lol"', ...Array.from({ length: 9 }, (_, index) => `l${index + 1}: &l${index + 1} [${Array(10).fill(`*l${index}`).join(', ')}]`)].join('\n');
    expect(expansionPassesAt(`${laughs}\n`, LIMIT)).to.be.a('number');
  });

  it('finds nothing in documents without aliases, with a few, or with many small ones', () => {
    expect(expansionPassesAt(`a: "${'x'.repeat(900_000)}"\n`, LIMIT)).to.equal(undefined);
    const tasks = Array.from({ length: 52 }, (_, index) => `  - { id: t${index}, with: *w }`).join('\n');
    expect(expansionPassesAt(`vars: { base: &b [1, 2, 3] }\ntasks:\n  - id: first\n    with: &w { a: *b, b: *b, c: *b }\n${tasks}\n`, LIMIT)).to.equal(undefined);
  });

  it('counts nothing that only looks like an alias: comments, quotes, block scalars, folded plain lines', () => {
    const big = `big: &a "${'x'.repeat(100_000)}"\n`;
    const cases = [
      ['comments', `# *a *a\nk: 1 # *a *a *a\n`],
      ['quoted', `k: "*a *a *a"\nj: '*a, *a'\n`],
      ['block scalar', `k: |\n  *a\n  - *a\n  [*a, *a]\n`],
      ['folded plain lines', `k: text\n  *a\n  - *a\n  [*a, *a]\n`],
      ['a plain value on its own line', `k:\n  text\n  *a\n  - *a\n`],
      ['folded plain in a flow collection', `k: [text\n  *a, b]\n`],
    ] as const;
    for (const [name, body] of cases) {
      // 100 copies of the body: were its `*a` counted, the 100 KB anchor would pass 4 MiB many times over.
      const repeated = big + Array.from({ length: 100 }, (_, index) => body.replace(/^(\w+):/gm, `$1${index}:`)).join('');
      expect(exactBytes(repeated), name).to.be.below(LIMIT);
      expect(expansionPassesAt(repeated, LIMIT), name).to.equal(undefined);
    }
  });

  it('an alias names the last node anchored before it, also when that node is inside an earlier one of the same name', () => {
    const big = 'x'.repeat(50_000);
    // The outer &a holds a big value, but the inner &a (later in document order) is what every *a names.
    const aliases = Array.from({ length: 100 }, (_, index) => `k${index}: *a`).join('\n');
    const text = `outer: &a [ "${big}", &a small ]\n${aliases}\n`;
    expect(exactBytes(text)).to.be.below(LIMIT);
    expect(expansionPassesAt(text, LIMIT)).to.equal(undefined);
    const redefined = `first: &a "${big}"\nsecond: &a small\n${aliases}\n`;
    expect(expansionPassesAt(redefined, LIMIT)).to.equal(undefined);
  });

  it('gives no verdict on text it does not model: tags and directives', () => {
    const aliases = Array.from({ length: 100 }, (_, index) => `k${index}: *a`).join('\n');
    expect(expansionPassesAt(`a: &a !!str "${'x'.repeat(50_000)}"\n${aliases}\n`, LIMIT)).to.equal(undefined);
    expect(expansionPassesAt(`%YAML 1.1\n---\na: &a "${'x'.repeat(50_000)}"\n${aliases}\n`, LIMIT)).to.equal(undefined);
  });

  it('never passes the size the exact check measures, over generated documents', () => {
    // A small deterministic generator of anchors, aliases, redefinitions, flow and block nodes, block scalars,
    // folded plain scalars, comments and quotes: the bound at the exact size must never be crossed.
    let seed = 20261201;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const names = ['a', 'b', 'c'];
    const defined: string[] = [];
    const scalar = () => pick(['foo', 'bar baz', 'x'.repeat(Math.floor(random() * 40)), '12', 'null', 'true', '"q *a"', "'it''s'", 'w #c', '-1', 'http://h/p']);
    const node = (depth: number, indent: number, flow: boolean): string => {
      const anchor = random() < 0.3 ? `&${pick(names)} ` : '';
      const roll = random();
      if (defined.length > 0 && roll < 0.25) return `*${pick(defined)}`;
      let text: string;
      if (depth > 3 || roll < 0.45) text = anchor + scalar();
      else if (flow || roll < 0.6) {
        const items = Array.from({ length: Math.floor(random() * 4) }, (_, index) => (random() < 0.5 ? node(depth + 1, indent, true) : `k${index}: ${node(depth + 1, indent, true)}`));
        text = `${anchor}[${items.join(', ')}]`;
      } else if (roll < 0.7) {
        return `${anchor}|\n${Array.from({ length: 2 }, () => ' '.repeat(indent + 2) + pick(['*a', '&a big', '- *b', '# c'])).join('\n')}`;
      } else if (roll < 0.8) {
        return `${anchor}plain\n${' '.repeat(indent + 2)}${pick(['*a', '- *b', '&a more', 'text *c'])}`;
      } else if (roll < 0.9) {
        text = `${anchor.trimEnd()}\n${Array.from({ length: 2 }, () => `${' '.repeat(indent + 2)}- ${node(depth + 1, indent + 4, false)}`).join('\n')}`;
      } else {
        text = `${anchor.trimEnd()}\n${Array.from({ length: 2 }, (_, index) => `${' '.repeat(indent + 2)}m${index}: ${node(depth + 1, indent + 2, false)}${random() < 0.2 ? ' # *a' : ''}`).join('\n')}`;
      }
      const name = /&(\w+)/.exec(anchor)?.[1];
      if (name) defined.push(name);
      return text;
    };
    let compared = 0;
    for (let index = 0; index < 1500; index += 1) {
      defined.length = 0;
      const text = `${Array.from({ length: 1 + Math.floor(random() * 5) }, (_, key) => `t${key}: ${node(0, 0, false)}`).join('\n')}\n`;
      const exact = exactBytes(text);
      if (exact === undefined) continue;
      compared += 1;
      expect(expansionPassesAt(text, exact), text).to.equal(undefined);
    }
    expect(compared).to.be.above(1000);
  });
});
