// examples/scale-out.yaml as docs/scale-out.md shows it: run whole (every region rendered once, each read back, the
// summary made of every item's output), its cut (`plan --stages --shards 4`, the page's block), and the stages run by
// hand on local processes: prepare, four shards side by side, gather — the same output as the whole run.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { ROOT, runCli, runCliAsync, workspace } from '../support/cli.js';
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

describe('examples/scale-out.yaml, staged by hand as docs/scale-out.md shows', function () {
  this.timeout(120_000);
  let ws: ReturnType<typeof workspace>;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  it('prints the cut the page shows', () => {
    const page = readFileSync(join(ROOT, 'docs', 'scale-out.md'), 'utf8');
    const block = /<!-- scale-out: plan --stages --shards 4 -->\n```text\n([\s\S]*?)```/.exec(page)![1]!.split('\n').filter(Boolean);
    expect(block[0]).to.equal('$ agentctl plan examples/scale-out.yaml --stages --shards 4');
    const printed = runCli(['plan', 'examples/scale-out.yaml', '--stages', '--shards', '4']);
    expect(printed.status, printed.stderr).to.equal(0);
    const lines = printed.stdout.split('\n');
    let at = 0;
    for (const line of block.slice(1).filter((text) => !text.startsWith('  ... '))) {
      const found = lines.indexOf(line, at);
      expect(found, `the page's line is printed, in order: ${line}`).to.be.at.least(0);
      at = found + 1;
    }
    expect(lines.slice(lines.findIndex((line) => line.startsWith('stages:'))).filter(Boolean)).to.deep.equal(block.slice(block.findIndex((line) => line.startsWith('stages:'))));
  });

  it('gives the whole run\'s output from prepare, four shards at once and gather, each region rendered once', async () => {
    const work = ws.file('work');
    const whole = workspace();
    let reference: any;
    try {
      reference = outcome(runCli(['run', EXAMPLE, '--workspace', whole.dir, '--db', whole.db, '--output', 'json']), 0);
    } finally {
      whole.cleanup();
    }
    ws.write('work/.keep', '');
    const db = (stage: string) => ws.file(`state/${stage}/runtime.db`);
    const json = ['--workspace', work, '--output', 'json'];
    const prepared = outcome(runCli(['run', EXAMPLE, '--stage', 'prepare', '--db', db('prepare'), ...json]), 0);
    expect(prepared.data.state).to.equal('succeeded');
    const shards = await Promise.all([0, 1, 2, 3].map((index) => runCliAsync(['run', EXAMPLE, '--shard', `${index}/4`, '--from', db('prepare'), '--db', db(`shards/${index}`), ...json], { timeoutMs: 60_000 })));
    for (const shard of shards) expect(outcome(shard, 0).data.state).to.equal('succeeded');
    const gathered = outcome(runCli(['runs', 'gather', EXAMPLE, ...[0, 1, 2, 3].flatMap((index) => ['--from', db(`shards/${index}`)]), '--db', db('gather'), ...json]), 0);
    expect(gathered.data.state).to.equal('succeeded');
    expect(gathered.data.output).to.deep.equal(reference.data.output);
    const logged = readFileSync(join(work, 'out', 'effects.log'), 'utf8').split('\n').filter(Boolean);
    expect([...logged].sort()).to.deep.equal([...REGIONS].sort());
    // Each shard ran its own items: region i in shard i mod 4.
    for (const [index, shard] of shards.entries()) {
      const rendered = rows(db(`shards/${index}`), "SELECT task_id FROM effects WHERE operation = 'process.exec' AND state = 'succeeded' ORDER BY task_id").map((row) => Number(/^regions--(\d{4})-/.exec(row.task_id)![1]));
      expect(rendered, `shard ${index}`).to.deep.equal(REGIONS.map((_, item) => item).filter((item) => item % 4 === index));
      expect(JSON.parse(shard.stdout).data.state).to.equal('succeeded');
    }
  });
});
