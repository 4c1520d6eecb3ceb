// The suite's own set-up: `npx mocha FILE` runs that file alone, because .mocharc.json names no spec; npm test's shard
// runner finds the spec files itself.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { expect } from 'chai';
import { ROOT } from '../support/cli.js';
// @ts-expect-error: a plain ES module of the repository's scripts, without types
import { readTimings, schedule, writeTimings } from '../../scripts/test-schedule.mjs';

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

  describe('dealing files to processes', () => {
    const files = ['a.test.ts', 'b.test.ts', 'c.test.ts', 'd.test.ts', 'e.test.ts'];

    it('without times deals round-robin in path order', () => {
      expect(schedule([...files].reverse(), 2, {})).to.deep.equal([['a.test.ts', 'c.test.ts', 'e.test.ts'], ['b.test.ts', 'd.test.ts']]);
      expect(schedule(files, 2, { 'gone.test.ts': 40 })).to.deep.equal([['a.test.ts', 'c.test.ts', 'e.test.ts'], ['b.test.ts', 'd.test.ts']]);
    });

    it('with times deals the longest first onto the least loaded process, a file never timed at the median, each process in path order', () => {
      const times = { 'a.test.ts': 10, 'b.test.ts': 1, 'c.test.ts': 6, 'd.test.ts': 5 };
      // 10 -> 1; 6 -> 2; e (median 6) -> 2 (12); 5 -> 1 (15); 1 -> 2 (13).
      expect(schedule(files, 2, times)).to.deep.equal([['a.test.ts', 'd.test.ts'], ['b.test.ts', 'c.test.ts', 'e.test.ts']]);
      expect(schedule(files, 3, times).map((shard: string[]) => shard.length)).to.deep.equal([1, 2, 2]);
      expect(schedule(files, 1, times)).to.deep.equal([files]);
    });

    it('keeps the times of files a narrowed run did not run, drops files that are gone, and ignores a damaged times file', () => {
      const folder = mkdtempSync(join(tmpdir(), 'agentctl-test-timings-'));
      try {
        const path = join(folder, 'timings.json');
        expect(readTimings(path)).to.deep.equal({});
        const merged = writeTimings(path, { 'a.test.ts': 3, 'gone.test.ts': 9 }, { 'b.test.ts': 2, 'a.test.ts': 4 }, (file: string) => file !== 'gone.test.ts');
        expect(merged).to.deep.equal({ 'a.test.ts': 4, 'b.test.ts': 2 });
        expect(readTimings(path)).to.deep.equal({ 'a.test.ts': 4, 'b.test.ts': 2 });
        expect(readdirSync(folder)).to.deep.equal(['timings.json']);
        writeFileSync(path, '{"a.test.ts": 4, "b.test.ts": "slow", "c.test.ts": -1');
        expect(readTimings(path)).to.deep.equal({});
        writeFileSync(path, '{"a.test.ts": 4, "b.test.ts": "slow", "c.test.ts": -1}');
        expect(readTimings(path)).to.deep.equal({ 'a.test.ts': 4 });
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    });

    it('a run writes each file\'s seconds, read by the next run to deal its files, and prints the slowest', function () {
      this.timeout(120_000);
      const folder = mkdtempSync(join(tmpdir(), 'agentctl-test-timings-'));
      try {
        const timings = join(folder, 'timings.json');
        const env = { ...process.env, AGENTCTL_TEST_SHARDS: '2', AGENTCTL_TEST_TIMINGS: timings };
        const specs = ['test/unit/deadline.test.ts', 'test/unit/graph.test.ts', 'test/unit/templates.test.ts'];
        const before = spawnSync(process.execPath, [join(ROOT, 'scripts', 'test-shards.mjs'), '--list', ...specs], { cwd: ROOT, encoding: 'utf8', env });
        expect(JSON.parse(before.stdout)).to.deep.equal([[specs[0], specs[2]], [specs[1]]]);
        const run = spawnSync(process.execPath, [join(ROOT, 'scripts', 'test-shards.mjs'), ...specs], { cwd: ROOT, encoding: 'utf8', env });
        expect(run.status, run.stderr).to.equal(0);
        expect(run.stdout).to.match(/^slowest 3 spec files \(s; all in .*timings\.json\):$/m);
        expect(run.stdout).to.match(/^3 spec files in 2 processes, [\d.]+ min$/m);
        expect(run.stdout.trim().split('\n').at(-1)).to.match(/^\d+ passed, 0 failed, 0 skipped$/);
        const written = JSON.parse(readFileSync(timings, 'utf8')) as Record<string, number>;
        expect(Object.keys(written)).to.deep.equal(specs);
        for (const spec of specs) expect(run.stdout).to.contain(`  ${spec}\n`);
        // The next run reads them: planted times decide the deal.
        writeFileSync(timings, JSON.stringify({ [specs[0]]: 1, [specs[1]]: 50, [specs[2]]: 2 }));
        const after = spawnSync(process.execPath, [join(ROOT, 'scripts', 'test-shards.mjs'), '--list', ...specs], { cwd: ROOT, encoding: 'utf8', env });
        expect(JSON.parse(after.stdout)).to.deep.equal([[specs[1]], [specs[0], specs[2]]]);
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    });
  });
});
