// The suite's own set-up: `npx mocha FILE` runs that file alone, because .mocharc.json names no spec; npm test's shard
// runner finds the spec files itself.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect } from 'chai';
import { ROOT } from '../support/cli.js';

describe('test suite set-up', () => {
  it('mocha given one file runs only that file\'s tests', function () {
    this.timeout(60_000);
    const mocha = join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js');
    const result = spawnSync(process.execPath, [mocha, '--dry-run', 'test/unit/deadline.test.ts'], { cwd: ROOT, encoding: 'utf8' });
    expect(result.status, result.stderr).to.equal(0);
    const expected = [...readFileSync(join(ROOT, 'test/unit/deadline.test.ts'), 'utf8').matchAll(/^\s*it\(/gm)].length;
    expect(result.stdout.trim().split('\n').at(-1)).to.equal(`${expected} passed, 0 failed, 0 skipped`);
  });

  it('npm test runs the shard runner, whose shards hold every spec file under test/ and builtins/ once (but test/install/, npm run test:install\'s); .mocharc.json names none', () => {
    const rc = JSON.parse(readFileSync(join(ROOT, '.mocharc.json'), 'utf8')) as Record<string, unknown>;
    expect(rc).to.not.have.property('spec');
    const script = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.test!;
    expect(script).to.match(/&& node scripts\/test-shards\.mjs$/);
    const listed = spawnSync(process.execPath, [join(ROOT, 'scripts', 'test-shards.mjs'), '--list'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, AGENTCTL_TEST_SHARDS: '3' } });
    const shards = JSON.parse(listed.stdout) as string[][];
    expect(shards).to.have.length(3);
    const specs = (folder: string): string[] =>
      readdirSync(join(ROOT, folder), { withFileTypes: true, recursive: true })
        .filter((entry) => entry.isFile() && entry.name.endsWith('.test.ts'))
        .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
        .filter((path) => !path.includes('node_modules') && !path.includes('/fixtures/'));
    const own = specs('test/install');
    expect(own).to.include('test/install/npm-packages.test.ts');
    expect(shards.flat().sort()).to.deep.equal([...specs('test'), ...specs('builtins')].filter((path) => !own.includes(path)).sort());
  });
});
