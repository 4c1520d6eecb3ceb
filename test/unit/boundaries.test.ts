import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from '../support/cli.js';

function* files(folder: string): Generator<string> {
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (path.endsWith('.ts')) yield path;
  }
}

const importsOf = (text: string) => [...text.matchAll(/(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((match) => match[1] ?? match[2]!);

describe('code boundaries', () => {
  it('builtins import only the SDK (never core/)', () => {
    const offenders: string[] = [];
    for (const file of files(join(ROOT, 'builtins'))) {
      for (const specifier of importsOf(readFileSync(file, 'utf8'))) {
        if (specifier.includes('/core/') || specifier.startsWith('../core') || specifier.includes('dist/core')) offenders.push(`${relative(ROOT, file)} imports ${specifier}`);
      }
    }
    expect(offenders).to.deep.equal([]);
  });

  it('core never branches on action kind names', () => {
    const offenders: string[] = [];
    for (const file of files(join(ROOT, 'core'))) {
      const text = readFileSync(file, 'utf8');
      if (/['"]builtin\.(assign|assert|read|write|shell\.exec)['"]/.test(text)) offenders.push(relative(ROOT, file));
      if (/switch\s*\(\s*[\w.]*kind\s*\)/.test(text)) offenders.push(`${relative(ROOT, file)} switches on a kind`);
    }
    expect(offenders).to.deep.equal([]);
  });

  it('the version constant equals package.json', async () => {
    const { HOST_VERSION } = await import('../../core/version.js');
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(HOST_VERSION).to.equal(manifest.version);
  });
});
