// The suite's own set-up: `npx mocha FILE` runs that file alone, because the spec globs live in the test script.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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

  it('the test script names the spec globs, and .mocharc.json names none', () => {
    const rc = JSON.parse(readFileSync(join(ROOT, '.mocharc.json'), 'utf8')) as Record<string, unknown>;
    expect(rc).to.not.have.property('spec');
    const script = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.test!;
    expect(script).to.contain("'test/**/*.test.ts'").and.to.contain("'builtins/**/*.test.ts'");
  });
});
