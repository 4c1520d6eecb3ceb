// examples/scale-out.yaml run whole, as docs/scale-out.md runs it first: every region rendered once, each read back,
// and the summary's output made of every item's.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { ROOT, runCli, workspace } from '../support/cli.js';
import { outcome, rows } from './helpers.js';

const EXAMPLE = join(ROOT, 'examples', 'scale-out.yaml');
const REGIONS: string[] = parse(readFileSync(EXAMPLE, 'utf8')).spec.tasks.find((task: { id: string }) => task.id === 'regions').foreach.items;

describe('examples/scale-out.yaml, run whole', function () {
  this.timeout(60_000);
  let ws: ReturnType<typeof workspace>;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  it('renders each of the ten regions once, reads each back, and summarises all of them', () => {
    const run = outcome(runCli(['run', EXAMPLE, '--workspace', ws.dir, '--db', ws.db, '--output', 'json']), 0);
    expect(run.data.state).to.equal('succeeded');
    expect(REGIONS).to.have.length(10);

    const logged = readFileSync(ws.file('out/effects.log'), 'utf8').split('\n').filter(Boolean);
    expect([...logged].sort()).to.deep.equal([...REGIONS].sort());
    expect(readdirSync(ws.file('out/regions')).sort()).to.deep.equal(REGIONS.map((region) => `${region}.txt`).sort());
    expect(readFileSync(ws.file('out/regions/par.txt'), 'utf8')).to.equal('region par (item 4): rendered\n');

    const summary = run.data.output.summary;
    expect(summary.manifest).to.match(/^[0-9a-f]{64}$/);
    expect(summary.reports.map((report: any) => [report.index, report.state, report.output.region])).to.deep.equal(REGIONS.map((region, index) => [index, 'succeeded', region]));
    for (const report of summary.reports) expect(report.output.sha256).to.match(/^[0-9a-f]{64}$/);

    const effects = rows(ws.db, "SELECT operation, count(*) AS n FROM effects WHERE state = 'succeeded' GROUP BY operation ORDER BY operation");
    expect(effects).to.deep.equal([
      { operation: 'filesystem.read', n: 10 },
      { operation: 'filesystem.write', n: 1 },
      { operation: 'process.exec', n: 10 },
    ]);
  });

  it('gives the same output on a second machine (a fresh workspace and database)', () => {
    const first = outcome(runCli(['run', EXAMPLE, '--workspace', ws.dir, '--db', ws.db, '--output', 'json']), 0);
    const other = workspace();
    try {
      const second = outcome(runCli(['run', EXAMPLE, '--workspace', other.dir, '--db', other.db, '--output', 'json']), 0);
      expect(second.data.output).to.deep.equal(first.data.output);
    } finally {
      other.cleanup();
    }
  });
});
