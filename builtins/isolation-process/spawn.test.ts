import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { OutputCapture } from '@agentctl/sdk';
import { runProcess, type SpawnSpec } from './spawn.js';

const limits = { stdout: 1 << 20, stderr: 1 << 20, combined: 2 << 20 };
const spec = (args: string[], extra: Partial<SpawnSpec> = {}): SpawnSpec => ({
  executable: '/bin/sh',
  args: ['-c', ...args],
  cwd: '/',
  env: {},
  timeoutMs: 10_000,
  limits,
  ...extra,
});

/** Live (non-zombie) processes whose command line contains `marker`. */
function alive(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      const state = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.[0];
      if (cmdline.includes(marker) && state !== 'Z') found.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

/** A signal that is never aborted. */
const never = new AbortController().signal;

describe('runProcess', () => {
  it('captures both streams and the exit status', async () => {
    const result = await runProcess(spec(['echo out; echo err >&2; exit 7']), never);
    expect(result).to.include({ end: 'exited', exitCode: 7, truncated: false });
    expect(result.stdout.toString()).to.equal('out\n');
    expect(result.stderr.toString()).to.equal('err\n');
  });

  it('kills a backgrounded grandchild when the leader exits', async () => {
    const result = await runProcess(spec(['sleep 41.5 & echo started']), never);
    expect(result.end).to.equal('exited');
    expect(result.durationMs).to.be.below(20_000); // the sleeps last over 40 s
    expect(alive('sleep 41.5')).to.deep.equal([]);
  });

  it('kills the whole tree at the deadline', async () => {
    const result = await runProcess(spec(['sleep 42.5 & sleep 42.5'], { timeoutMs: 300 }), never);
    expect(result.end).to.equal('timeout');
    expect(result.durationMs).to.be.below(20_000); // the sleeps last over 40 s
    expect(alive('sleep 42.5')).to.deep.equal([]);
  });

  it('kills the whole tree on abort and reports the reason', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort('SIGTERM'), 200);
    const result = await runProcess(spec(['sleep 43.5 & sleep 43.5']), controller.signal);
    expect(result).to.include({ end: 'aborted', reason: 'SIGTERM' });
    expect(alive('sleep 43.5')).to.deep.equal([]);
  });

  it('does not wait past the grace period for a setsid escapee holding the pipes', async () => {
    const result = await runProcess(spec(['setsid sleep 44.5 & echo done'], { timeoutMs: 20_000 }), never);
    expect(result.end).to.equal('exited');
    expect(result.durationMs).to.be.below(20_000); // the escapee sleeps over 40 s
    for (const pid of alive('sleep 44.5')) process.kill(pid, 'SIGKILL');
  });

  it('stops at the stdout limit with bounded capture', async () => {
    const result = await runProcess(spec(['yes'], { limits: { ...limits, stdout: 4096 } }), never);
    expect(result).to.include({ end: 'overflow', stream: 'stdout', limit: 4096, truncated: true });
    expect(result.stdout.length).to.equal(4096);
  });

  it('keeps output byte for byte across many chunks, up to each limit and the combined one', async () => {
    const expected = Array.from({ length: 60_000 }, (_, index) => `${index + 1}\n`).join('');
    const whole = await runProcess(spec(['seq 60000; seq 3 >&2']), never);
    expect(whole).to.include({ end: 'exited', exitCode: 0, truncated: false });
    expect(whole.stdout.toString()).to.equal(expected);
    expect(whole.stderr.toString()).to.equal('1\n2\n3\n');
    const cut = await runProcess(spec(['seq 60000'], { limits: { stdout: 200_000, stderr: 10, combined: 100_000 } }), never);
    expect(cut).to.include({ end: 'overflow', stream: 'combined', limit: 100_000, truncated: true });
    expect(cut.stdout.toString()).to.equal(expected.slice(0, 100_000));
  });

  it('reports a spawn error for a missing executable', async () => {
    const result = await runProcess({ ...spec([]), executable: '/nonexistent/agentctl-binary' }, never);
    expect(result.end).to.equal('spawn_error');
  });

  it('passes only the given environment', async () => {
    const result = await runProcess({ ...spec([]), executable: '/usr/bin/env', args: [], env: { ONLY: '1' } }, never);
    expect(result.stdout.toString()).to.equal('ONLY=1\n');
  });
});

describe('OutputCapture', () => {
  it('hands its bytes over with take(): afterwards it holds nothing, so a result alone keeps a flood alive', () => {
    const output = new OutputCapture(limits);
    expect(output.write('stdout', Buffer.alloc(100_000, 'y'))).to.equal(undefined);
    const { stdout } = output.take();
    expect([stdout.length, stdout.buffer.byteLength]).to.deep.equal([100_000, 1 << 20]);
    expect(output.take().stdout.length).to.equal(0);
    expect(stdout.subarray(0, 3).toString()).to.equal('yyy');
  });

  it('keeps a stream up to its limit and names the limit passed, the stream or the combined one', () => {
    const output = new OutputCapture({ stdout: 10, stderr: 8, combined: 12 });
    expect(output.write('stdout', Buffer.from('123456'))).to.equal(undefined);
    expect(output.write('stderr', Buffer.from('abcdefgh'))).to.deep.equal({ end: 'overflow', stream: 'combined', limit: 12 });
    expect(output.truncated).to.equal(true);
    const kept = output.take();
    expect([kept.stdout.toString(), kept.stderr.toString(), kept.truncated]).to.deep.equal(['123456', 'abcdef', true]);
    expect(new OutputCapture({ stdout: 4, stderr: 8, combined: 12 }).write('stdout', Buffer.from('12345'))).to.deep.equal({ end: 'overflow', stream: 'stdout', limit: 4 });
  });
});
