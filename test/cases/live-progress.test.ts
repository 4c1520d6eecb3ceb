// Live progress on a real pseudo-terminal (util-linux `script`): the tasks in flight are drawn at the bottom of
// stderr and settle into the plain progress lines; the region leaves the screen for anything else and on every way out.
import { existsSync } from 'node:fs';
import { expect } from 'chai';
import { embeddedPackCli, workspace } from '../support/cli.js';
import { HIDE_CURSOR, onTerminal, screenAfter, SHOW_CURSOR } from '../support/terminal.js';
import { workflow } from './helpers.js';
import { dim, noApproval, recorded, shell, SPIN, STEP_PACK, terminalEnv, twoTasks } from './terminal-case.js';

describe('live progress on a terminal', function () {
  this.timeout(60_000);
  before(function () {
    if (!existsSync('/usr/bin/script')) this.skip();
  });

  it('a running task shows a live line with its elapsed time, which settles into its log line; the cursor is shown at the end', async () => {
    const space = workspace({ 'wf.yaml': twoTasks(1) });
    try {
      const { status, bytes } = await onTerminal(['run', 'wf.yaml', '--db', space.db], { cwd: space.dir, env: terminalEnv() }).exit;
      expect(status, bytes).to.equal(0);
      const { runId, ms } = recorded(space.db);
      // Drawn more than once while `sleep 1` runs: the elapsed time grows.
      expect(bytes).to.match(new RegExp(`${SPIN} build running 0\\.[5-9]s`));
      expect(bytes).to.match(new RegExp(`${SPIN} build running 0\\.[0-4]s`));
      expect(bytes).to.contain(HIDE_CURSOR);
      // Each settled line is exactly today's log line; the `running` lines were only ever live.
      expect(bytes).to.contain(`${dim(`task succeeded build in ${ms('build')} ms`)}\r\n`);
      expect(bytes).to.contain(`${dim(`task succeeded lint in ${ms('lint')} ms`)}\r\n`);
      expect(bytes).not.to.contain('task running');
      const screen = screenAfter(bytes);
      expect(screen.lines).to.deep.equal([`task succeeded build in ${ms('build')} ms`, `task succeeded lint in ${ms('lint')} ms`, `run ${runId} succeeded: 2 succeeded`]);
      expect(screen.cursorVisible).to.equal(true);
      expect(bytes.endsWith(SHOW_CURSOR)).to.equal(true);
    } finally {
      space.cleanup();
    }
  });

  it('a retried task shows the attempt that failed, then the attempt that runs, out of its retry.maxAttempts', async () => {
    const flaky = shell('if [ -e marker ]; then sleep 0.5; else touch marker; exit 1; fi');
    const space = workspace({ 'wf.yaml': workflow({ policy: noApproval, actions: { flaky }, tasks: [{ id: 'flaky', uses: 'action:flaky', retry: { maxAttempts: 3, backoffMs: 500 } }] }) });
    try {
      const { status, bytes } = await onTerminal(['run', 'wf.yaml', '--db', space.db], { cwd: space.dir, env: terminalEnv() }).exit;
      expect(status, bytes).to.equal(0);
      expect(bytes).to.match(new RegExp(`${SPIN} flaky retry scheduled \\d+\\.\\ds \\(attempt 1/3 failed\\)`));
      expect(bytes).to.match(new RegExp(`${SPIN} flaky running \\d+\\.\\ds \\(attempt 2/3\\)`));
      const { runId, ms, code } = recorded(space.db);
      expect(screenAfter(bytes).lines).to.deep.equal([`task retry_scheduled flaky ${code('flaky', 'task.retry_scheduled')}`, `task succeeded flaky (attempt 2) in ${ms('flaky')} ms`, `run ${runId} succeeded: 1 succeeded`]);
    } finally {
      space.cleanup();
    }
  });

  it('the region leaves the screen while the approver asks, and comes back once the person answers', async () => {
    const space = workspace({ 'wf.yaml': workflow({ policy: { processAllowlist: ['sh'] }, actions: { slow: shell('sleep 1') }, tasks: [{ id: 'deploy', uses: 'action:slow' }] }) });
    try {
      const terminal = onTerminal(['run', 'wf.yaml', '--db', space.db], { cwd: space.dir, env: terminalEnv() });
      await terminal.waitFor('approve? [y/N] ');
      // Asked on a clean screen (no live line under or over the question), with the cursor shown for the answer.
      const asked = screenAfter(terminal.bytes());
      expect(asked.lines.at(-1)).to.equal('approve? [y/N]');
      expect(asked.lines.filter((line) => /running|waiting/.test(line))).to.deep.equal([]);
      expect(asked.cursorVisible).to.equal(true);
      const before = terminal.bytes().length;
      terminal.type('y\r');
      await terminal.waitFor(new RegExp(`approve\\? \\[y/N\\] [^]*${SPIN} deploy running \\d+\\.\\ds`));
      const { status, bytes } = await terminal.exit;
      expect(status, bytes).to.equal(0);
      expect(bytes.slice(before)).to.contain(HIDE_CURSOR);
      const { runId, ms } = recorded(space.db);
      const screen = screenAfter(bytes);
      expect(screen.lines.slice(-3)).to.deep.equal(['approve? [y/N] y', `task succeeded deploy in ${ms('deploy')} ms`, `run ${runId} succeeded: 1 succeeded`]);
      expect(screen.lines[0]).to.equal('');
      expect(screen.lines[1]).to.equal('approval needed for task deploy: process.exec');
      expect(screen.cursorVisible).to.equal(true);
    } finally {
      space.cleanup();
    }
  });

  it('a question while the region is drawn: the region leaves, the cursor is shown for the answer, both tasks come back', async () => {
    const { ws: space, entry } = embeddedPackCli(STEP_PACK);
    try {
      const tasks = [
        { id: 'watch', uses: 'action:step', with: { before: 0, during: 3000, mutate: false } },
        { id: 'ask', uses: 'action:step', with: { before: 800, during: 500, mutate: true } },
      ];
      space.write('wf.yaml', workflow({ runtime: { maxConcurrency: 2 }, actions: { step: { kind: 'acme.step' } }, tasks }));
      const terminal = onTerminal(['run', 'wf.yaml', '--db', space.db], { cwd: space.dir, env: terminalEnv(), entry });
      await terminal.waitFor('approve? [y/N] ');
      const shown = terminal.bytes();
      expect(shown.slice(0, shown.indexOf('approval needed'))).to.match(new RegExp(`${HIDE_CURSOR.replace(/[[?]/g, '\\$&')}${SPIN} watch running`));
      const asked = screenAfter(shown);
      expect(asked.lines.slice(-5, -3)).to.deep.equal(['', 'approval needed for task ask: acme.step']);
      expect(asked.lines.at(-1)).to.equal('approve? [y/N]');
      expect(asked.lines.filter((line) => line.includes('running'))).to.deep.equal([]);
      expect(asked.cursorVisible).to.equal(true);
      terminal.type('y\r');
      await terminal.waitFor(new RegExp(`approve\\? \\[y/N\\] [^]*${SPIN} watch running \\d+\\.\\ds\\r\\n${SPIN} ask running`));
      const { status, bytes } = await terminal.exit;
      expect(status, bytes).to.equal(0);
      const { runId, ms } = recorded(space.db);
      const screen = screenAfter(bytes);
      expect(screen.lines.at(-4)).to.equal('approve? [y/N] y');
      // The two ends in the ledger's order.
      expect(screen.lines.slice(-3, -1)).to.have.members([`task succeeded ask in ${ms('ask')} ms`, `task succeeded watch in ${ms('watch')} ms`]);
      expect(screen.lines.at(-1)).to.equal(`run ${runId} succeeded: 2 succeeded`);
      expect(screen.cursorVisible).to.equal(true);
    } finally {
      space.cleanup();
    }
  });

  it('a task parked for approval (nobody to ask) shows waiting for approval, then settles into its log line', async () => {
    const space = workspace({ 'wf.yaml': workflow({ policy: { processAllowlist: ['sh'] }, actions: { quick: shell('true') }, tasks: [{ id: 'deploy', uses: 'action:quick' }] }) });
    try {
      const { status, bytes } = await onTerminal(['run', 'wf.yaml', '--db', space.db], { cwd: space.dir, env: terminalEnv(), noStdin: true }).exit;
      expect(status, bytes).to.equal(3);
      // Shown apart: its own mark and yellow.
      expect(bytes).to.match(/\u001b\[33m\? deploy waiting for approval \d+\.\ds\u001b\[0m/);
      const { runId, ms, code } = recorded(space.db);
      const screen = screenAfter(bytes);
      expect(screen.lines).to.have.length(2);
      expect(screen.lines[0]).to.equal(`task waiting_for_approval deploy in ${ms('deploy', 'task.waiting_for_approval')} ms ${code('deploy', 'task.waiting_for_approval')}`);
      expect(screen.lines[1]).to.match(new RegExp(`^run ${runId} paused: 1 waiting_for_approval — approval apr_\\w+ is pending: `));
      expect(screen.cursorVisible).to.equal(true);
    } finally {
      space.cleanup();
    }
  });

  it('Ctrl+C cancels the run and leaves the terminal clean: no live line, the cursor shown', async () => {
    const space = workspace({ 'wf.yaml': workflow({ policy: noApproval, actions: { long: shell('sleep 30') }, tasks: [{ id: 'long', uses: 'action:long' }] }) });
    try {
      const terminal = onTerminal(['run', 'wf.yaml', '--db', space.db], { cwd: space.dir, env: terminalEnv() });
      await terminal.waitFor(new RegExp(`${SPIN} long running (0\\.[3-9]|[1-9]\\.\\d)s`));
      terminal.type('\u0003');
      const { status, bytes } = await terminal.exit;
      expect(status, bytes).to.equal(130);
      const { runId, ms, code } = recorded(space.db);
      const screen = screenAfter(bytes);
      expect(screen.lines).to.deep.equal([`task cancelled long in ${ms('long', 'task.cancelled')} ms ${code('long', 'task.cancelled')}`, `run ${runId} cancelled: 1 cancelled — run ${runId} was cancelled (SIGINT)`]);
      expect(screen.cursorVisible).to.equal(true);
      expect(bytes.lastIndexOf(SHOW_CURSOR)).to.be.greaterThan(bytes.lastIndexOf(HIDE_CURSOR));
    } finally {
      space.cleanup();
    }
  });

  it('a second Ctrl+C while the cancellation waits for an effect: agentctl exits at once, and the terminal is clean', async () => {
    const { ws: space, entry } = embeddedPackCli(STEP_PACK);
    try {
      space.write('wf.yaml', workflow({ actions: { step: { kind: 'acme.step' } }, tasks: [{ id: 'deaf', uses: 'action:step', with: { before: 0, during: 20000, mutate: false } }] }));
      const terminal = onTerminal(['run', 'wf.yaml', '--db', space.db], { cwd: space.dir, env: terminalEnv(), entry });
      await terminal.waitFor(new RegExp(`${SPIN} deaf running (0\\.[3-9]|[1-9]\\.\\d)s`));
      terminal.type('\u0003');
      // Still drawn while the effect keeps the run from ending.
      const first = terminal.bytes().length;
      await terminal.waitFor(new RegExp(`[^]{${first}}[^]*${SPIN} deaf running`));
      terminal.type('\u0003');
      const { status, bytes } = await terminal.exit;
      expect(status, bytes).to.equal(130);
      const { runId } = recorded(space.db);
      const screen = screenAfter(bytes);
      expect(screen.lines.filter((line) => new RegExp(`^${SPIN} `).test(line))).to.deep.equal([]);
      expect(screen.lines.at(-1)).to.match(new RegExp(`^run ${runId} cancelled: 1 cancelled — run ${runId} was cancelled \\(a second SIGINT stopped agentctl`));
      expect(screen.cursorVisible).to.equal(true);
    } finally {
      space.cleanup();
    }
  });

  it('a failed run: the task settles before the error is printed; `retry` draws the task it runs again', async () => {
    const script = 'sleep 0.4; [ -e fixed ] || exit 3';
    const space = workspace({ 'wf.yaml': workflow({ policy: noApproval, actions: { check: shell(script) }, tasks: [{ id: 'check', uses: 'action:check' }] }) });
    try {
      const failed = await onTerminal(['run', 'wf.yaml', '--db', space.db], { cwd: space.dir, env: terminalEnv() }).exit;
      expect(failed.status, failed.bytes).to.equal(4);
      expect(failed.bytes).to.match(new RegExp(`${SPIN} check running \\d+\\.\\ds`));
      const { runId, ms, code } = recorded(space.db);
      const screen = screenAfter(failed.bytes);
      expect(screen.lines[0]).to.equal(`task failed check in ${ms('check', 'task.failed')} ms ${code('check', 'task.failed')}`);
      expect(screen.lines[1]).to.match(/^error: task check failed/);
      expect(screen.lines.at(-1)).to.equal('  exit 4 (The run ended failed.)');
      expect(screen.lines.filter((line) => new RegExp(`^${SPIN} `).test(line))).to.deep.equal([]);
      expect(screen.cursorVisible).to.equal(true);

      space.write('fixed', '');
      const retried = await onTerminal(['retry', 'wf.yaml', runId, '--failed', '--db', space.db], { cwd: space.dir, env: terminalEnv() }).exit;
      expect(retried.status, retried.bytes).to.equal(0);
      expect(retried.bytes).to.match(new RegExp(`${SPIN} check running \\d+\\.\\ds`));
      const last = screenAfter(retried.bytes);
      expect(last.lines[0]).to.match(/^task succeeded check in \d+ ms$/);
      expect(last.cursorVisible).to.equal(true);
    } finally {
      space.cleanup();
    }
  });

  it("a plugin's log lines and a direct write to stderr print above the region, whole; the region comes back under them", async () => {
    const pack = `
import { z } from 'zod';
import { defineActionKind } from './sdk-copy/index.js';
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
export default defineActionKind({
  name: 'acme.wait',
  plugin: 'acme-pack',
  version: '1.0.0',
  hostRange: '^0.1.0',
  description: 'Logs while it waits.',
  actionSchema: z.strictObject({}),
  inputSchema: z.strictObject({}),
  effect: { effectClass: 'pure', risk: 'low', idempotency: 'idempotent' },
  async dispatch({ log }) {
    await pause(400);
    log.info('starting');
    await pause(400);
    process.stderr.write('written directly to stderr\\n');
    await pause(400);
    log.warn('::error::half way \\u001b[31m');
    await pause(400);
    return {};
  },
});
`;
    const { ws: space, entry } = embeddedPackCli(pack);
    try {
      // The pack's task records no effect, so it has no live line of its own (as it has no `task running` line); `bg` runs beside it.
      const actions = { wait: { kind: 'acme.wait' }, slow: shell('sleep 2.5') };
      space.write('wf.yaml', workflow({ policy: noApproval, runtime: { maxConcurrency: 2 }, actions, tasks: [{ id: 'bg', uses: 'action:slow' }, { id: 'job', uses: 'action:wait' }] }));
      const { status, bytes } = await onTerminal(['run', 'wf.yaml', '--db', space.db], { cwd: space.dir, env: terminalEnv(), entry }).exit;
      expect(status, bytes).to.equal(0);
      const { runId, ms } = recorded(space.db);
      const lines = screenAfter(bytes).lines;
      expect(lines.slice(0, 3)).to.deep.equal(['log job acme.wait info: starting', 'written directly to stderr', 'log job acme.wait warn: \\x3a:error::half way \\x1b[31m']);
      // The two ends in the ledger's order.
      expect(lines.slice(3, 5)).to.have.members([`task succeeded job in ${ms('job')} ms`, `task succeeded bg in ${ms('bg')} ms`]);
      expect(lines.slice(5)).to.deep.equal([`run ${runId} succeeded: 2 succeeded`]);
      // Drawn before the first line, and again after each: the region comes back under every line printed above it.
      const live = new RegExp(`${SPIN} bg running`, 'g');
      const marks = ['starting', 'written directly', 'half way', 'task succeeded bg'].map((text) => bytes.indexOf(text));
      const frames = [...bytes.matchAll(live)].map((match) => match.index);
      for (let index = 0; index < marks.length; index += 1) expect(frames.some((at) => at < marks[index]! && at > (marks[index - 1] ?? -1)), `a frame before ${index}`).to.equal(true);
    } finally {
      space.cleanup();
    }
  });

  it('a resized terminal gets lines cut to its new width from the next frame on', async () => {
    const id = 'a-task-with-a-name-of-fifty-characters-or-so-long';
    const space = workspace({ 'wf.yaml': workflow({ policy: noApproval, actions: { slow: shell('sleep 2') }, tasks: [{ id, uses: 'action:slow' }] }) });
    try {
      const terminal = onTerminal(['run', 'wf.yaml', '--db', space.db], { cwd: space.dir, env: terminalEnv(), columns: 100, resizable: true });
      await terminal.waitFor(new RegExp(`${SPIN} ${id} running \\d+\\.\\ds\\r\\n`));
      const before = terminal.bytes().length;
      terminal.resize(30);
      // 29 columns: the spinner, a blank, 26 characters of the name and `…`.
      const narrow = new RegExp(`${SPIN} ${id.slice(0, 26)}…\\r\\n`);
      await terminal.waitFor(narrow);
      const { status, bytes } = await terminal.exit;
      expect(status, bytes).to.equal(0);
      expect(narrow.test(bytes.slice(0, before))).to.equal(false);
      // Once narrow, every later frame is narrow.
      expect(bytes.slice(bytes.search(narrow))).not.to.match(new RegExp(`${id} running`));
      expect(screenAfter(bytes.slice(bytes.indexOf('\r\n') + 2)).cursorVisible).to.equal(true);
    } finally {
      space.cleanup();
    }
  });

  it('at most ten lines: nine tasks and a count of the others; lines are cut to the terminal width', async () => {
    // Every name is wider than the terminal (40 columns): each line is cut to 39, ending in `…`.
    const names = Array.from({ length: 12 }, (_, index) => `task-${String(index).padStart(2, '0')}-whose-name-is-wider-than-the-terminal`);
    const tasks = names.map((id) => ({ id, uses: 'action:slow' }));
    const space = workspace({ 'wf.yaml': workflow({ policy: noApproval, runtime: { maxConcurrency: 12 }, actions: { slow: shell('sleep 1') }, tasks }) });
    try {
      const terminal = onTerminal(['run', 'wf.yaml', '--db', space.db], { cwd: space.dir, env: terminalEnv(), columns: 40 });
      // A whole frame: up to the end of its last line.
      await terminal.waitFor(/\+3 more\u001b\[0m\r\n/);
      const shown = terminal.bytes();
      const frame = screenAfter(shown.slice(0, shown.indexOf('\r\n', shown.indexOf('+3 more')) + 2)).lines;
      expect(frame).to.have.length(10);
      expect(frame.slice(0, 9).every((line) => new RegExp(`^${SPIN} `).test(line))).to.equal(true);
      expect(frame[9]).to.equal('  +3 more');
      for (const line of frame.slice(0, 9)) expect(names.map((id) => `${id.slice(0, 36)}…`)).to.include(line.slice(2));
      const { status, bytes } = await terminal.exit;
      expect(status, bytes).to.equal(0);
      const screen = screenAfter(bytes);
      expect(screen.lines).to.have.length(13);
      expect(screen.lines.filter((line) => line.startsWith('task succeeded '))).to.have.length(12);
      expect(screen.cursorVisible).to.equal(true);
    } finally {
      space.cleanup();
    }
  });
});
