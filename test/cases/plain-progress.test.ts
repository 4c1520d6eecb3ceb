// Wherever live progress is off (stderr not a terminal, NO_COLOR, --color never, CI, TERM=dumb, JSON output), a run's
// output is the plain progress log, byte for byte, even on a terminal.
import { existsSync } from 'node:fs';
import { expect } from 'chai';
import { runCli, workspace } from '../support/cli.js';
import { ESC, onTerminal } from '../support/terminal.js';
import { dim, plainLog, recorded, terminalEnv, twoTasks } from './terminal-case.js';

describe('plain progress wherever live progress is off (byte for byte)', function () {
  this.timeout(60_000);
  before(function () {
    if (!existsSync('/usr/bin/script')) this.skip();
  });

  // On a terminal stdout and stderr share one screen: the log lines, then the summary, each line ending in CRLF.
  const settings: { name: string; args: string[]; env: NodeJS.ProcessEnv; colored: boolean }[] = [
    { name: 'NO_COLOR=1', args: [], env: terminalEnv({ NO_COLOR: '1' }), colored: false },
    { name: '--color never', args: ['--color', 'never'], env: terminalEnv(), colored: false },
    { name: 'CI=true', args: [], env: terminalEnv({ CI: 'true' }), colored: true },
    { name: 'TERM=dumb', args: [], env: terminalEnv({ TERM: 'dumb' }), colored: true },
  ];
  for (const setting of settings) {
    it(`on a terminal with ${setting.name}: the plain log lines, nothing drawn`, async () => {
      const space = workspace({ 'wf.yaml': twoTasks(0) });
      try {
        const { status, bytes } = await onTerminal(['run', 'wf.yaml', '--db', space.db, ...setting.args], { cwd: space.dir, env: setting.env }).exit;
        expect(status, bytes).to.equal(0);
        const { runId } = recorded(space.db);
        const paint = setting.colored ? dim : (text: string) => text;
        const summary = `run ${runId} ${setting.colored ? `${ESC}[32msucceeded${ESC}[0m` : 'succeeded'}: 2 succeeded`;
        expect(bytes).to.equal([...plainLog(space.db).map(paint), summary].map((line) => `${line}\r\n`).join(''));
      } finally {
        space.cleanup();
      }
    });
  }

  it('on a terminal, when the terminal library cannot be loaded (a broken install): the plain log lines, exactly, then one warning', async () => {
    const space = workspace({ 'wf.yaml': twoTasks(0) });
    try {
      // A module-resolution hook that refuses log-update, as a missing package would.
      const refuse = 'export async function resolve(specifier, context, next) { if (specifier === "log-update") throw new Error("log-update is not installed"); return next(specifier, context); }';
      const hook = space.write('no-log-update.mjs', `import { register } from 'node:module';\nregister(${JSON.stringify(`data:text/javascript,${refuse}`)});\n`);
      const { status, bytes } = await onTerminal(['run', 'wf.yaml', '--db', space.db], { cwd: space.dir, env: terminalEnv({ NODE_OPTIONS: `--import ${hook}` }) }).exit;
      expect(status, bytes).to.equal(0);
      const summary = `run ${recorded(space.db).runId} ${ESC}[32msucceeded${ESC}[0m: 2 succeeded`;
      const warning = dim('warning: live progress is off: the terminal library could not be loaded (log-update is not installed)');
      expect(bytes).to.equal([...plainLog(space.db).map(dim), summary, warning].map((line) => `${line}\r\n`).join(''));
    } finally {
      space.cleanup();
    }
  });

  it('on a terminal with --output json: one document, no progress', async () => {
    const space = workspace({ 'wf.yaml': twoTasks(0) });
    try {
      const { status, bytes } = await onTerminal(['run', 'wf.yaml', '--db', space.db, '--output', 'json'], { cwd: space.dir, env: terminalEnv() }).exit;
      expect(status, bytes).to.equal(0);
      expect(bytes.endsWith('\r\n')).to.equal(true);
      const lines = bytes.split('\r\n');
      expect(lines).to.have.length(2);
      expect(JSON.parse(lines[0]!)).to.include({ kind: 'RunOutcome', ok: true });
    } finally {
      space.cleanup();
    }
  });

  it('on a terminal with --output jsonl: one event per line, then the document; nothing drawn', async () => {
    const space = workspace({ 'wf.yaml': twoTasks(0) });
    try {
      const { status, bytes } = await onTerminal(['run', 'wf.yaml', '--db', space.db, '--output', 'jsonl'], { cwd: space.dir, env: terminalEnv() }).exit;
      expect(status, bytes).to.equal(0);
      expect(bytes).not.to.contain(ESC);
      const lines = bytes.split('\r\n');
      expect(lines.pop()).to.equal('');
      const documents = lines.map((line) => JSON.parse(line));
      expect(documents.at(-1)).to.include({ kind: 'RunOutcome', ok: true });
      expect(documents.slice(0, -1).map((document) => document.kind)).to.satisfy((kinds: string[]) => kinds.length > 4 && kinds.every((kind) => kind === 'StreamEvent'));
    } finally {
      space.cleanup();
    }
  });

  it('not on a terminal (pipes, color allowed): the plain log lines on stderr, the summary on stdout', () => {
    const space = workspace({ 'wf.yaml': twoTasks(0) });
    try {
      const result = runCli(['run', 'wf.yaml', '--db', space.db], { cwd: space.dir, env: terminalEnv() });
      expect(result.status, result.stderr).to.equal(0);
      expect(result.stderr).to.equal(plainLog(space.db).map((line) => `${line}\n`).join(''));
      expect(result.stdout).to.equal(`run ${recorded(space.db).runId} succeeded: 2 succeeded\n`);
    } finally {
      space.cleanup();
    }
  });
});
