// Paths and processes at the system call: symlink swaps, kept file modes, trailing slashes, inherited descriptors,
// working directories, and child output shown in human mode.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, closeSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { BIN, baseEnv, runCli, workspace } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome, rows, shellWorkflow, useWorkspace, workflow } from './helpers.js';

describe('paths and processes', () => {
  const state = useWorkspace();
  const run = (extra: string[] = []) => runCli(['run', state.ws.file('wf.yaml'), '--db', state.ws.db, '--output', 'json', ...extra]);

  describe('symbolic links swapped between the policy check and the system call', () => {
    let swapper: ChildProcess | undefined;
    let outside: ReturnType<typeof workspace>;
    beforeEach(() => (outside = workspace()));
    afterEach(() => {
      if (swapper?.pid !== undefined && swapper.exitCode === null) process.kill(swapper.pid, 'SIGKILL');
      outside.cleanup();
    });

    it('never read a file outside the workspace into an output, nor create one outside it', async function () {
      this.timeout(120_000);
      outside.write('a.txt', 'OUTSIDE-SECRET\n');
      state.ws.write('in/real/a.txt', 'inside\n');
      mkdirSync(state.ws.file('out/real'), { recursive: true });
      // in/d and out/d flip between a folder inside the workspace (which policy allows) and one outside it.
      const links = [
        [state.ws.file('in/d'), 'real', outside.dir],
        [state.ws.file('out/d'), 'real', outside.dir],
      ];
      symlinkSync('real', state.ws.file('in/d'));
      symlinkSync('real', state.ws.file('out/d'));
      const script = `
        const fs = require('node:fs');
        const links = JSON.parse(process.argv[1]);
        for (let i = 0; ; i += 1) for (const [link, inside, outside] of links) {
          fs.rmSync(link + '.swap', { force: true });
          fs.symlinkSync(i % 2 ? outside : inside, link + '.swap');
          fs.renameSync(link + '.swap', link);
        }`;
      swapper = spawn(process.execPath, ['-e', script, JSON.stringify(links)], { stdio: 'ignore' });
      const count = 120;
      const tasks = Array.from({ length: count }, (_, index) => [
        { id: `r${index}`, uses: 'action:rd', failure: 'continue', with: { path: 'in/d/a.txt' } },
        { id: `w${index}`, uses: 'action:wr', failure: 'continue', with: { path: `out/d/w${index}.txt`, content: 'written\n' } },
      ]).flat();
      state.ws.write(
        'wf.yaml',
        workflow({
          policy: { writableRoots: ['out'], approval: 'never' },
          runtime: { maxConcurrency: 8 },
          actions: { rd: { kind: 'builtin.read' }, wr: { kind: 'builtin.write' } },
          tasks,
        }),
      );
      const result = await new Promise<{ status: number | null; stdout: string }>((resolve) => {
        const cli = spawn(process.execPath, [BIN, 'run', state.ws.file('wf.yaml'), '--db', state.ws.db, '--output', 'json'], { env: baseEnv(), stdio: ['ignore', 'pipe', 'ignore'] });
        let stdout = '';
        cli.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
        cli.once('close', (status) => resolve({ status, stdout }));
      });
      process.kill(swapper.pid!, 'SIGKILL');

      expect(result.status, result.stdout).to.equal(0);
      const stored = JSON.stringify(rows(state.ws.db, 'SELECT * FROM effects')) + JSON.stringify(rows(state.ws.db, 'SELECT * FROM tasks'));
      expect(stored).not.to.contain('OUTSIDE-SECRET');
      expect(readdirSync(outside.dir)).to.deep.equal(['a.txt']);
      // The race really ran: some reads went through, and some were refused after policy allowed them.
      const reads = rows(state.ws.db, `SELECT state, result_json FROM effects WHERE operation = 'filesystem.read'`);
      expect(reads.filter((effect) => effect.state === 'succeeded').map((effect) => JSON.parse(effect.result_json).content)).to.include('inside\n');
      expect(reads.every((effect) => effect.state === 'succeeded' || effect.state === 'failed')).to.equal(true);
    });
  });

  describe('builtin.write and file modes', () => {
    it('keeps a 0600 file 0600 and a 0755 script executable; a new file gets 0644 minus the umask', () => {
      chmodSync(state.ws.write('out/private.txt', 'old'), 0o600);
      chmodSync(state.ws.write('out/run.sh', 'old'), 0o755);
      state.ws.write(
        'wf.yaml',
        workflow({
          policy: { writableRoots: ['out'], approval: 'never' },
          actions: { wr: { kind: 'builtin.write' } },
          tasks: [
            { id: 'private', uses: 'action:wr', with: { path: 'out/private.txt', content: 'token\n' } },
            { id: 'script', uses: 'action:wr', with: { path: 'out/run.sh', content: '#!/bin/sh\necho hi\n' } },
            { id: 'fresh', uses: 'action:wr', with: { path: 'out/new.txt', content: 'new\n' } },
          ],
        }),
      );
      outcome(run(), 0);
      expect(statSync(state.ws.file('out/private.txt')).mode & 0o777).to.equal(0o600);
      expect(statSync(state.ws.file('out/run.sh')).mode & 0o777).to.equal(0o755);
      expect(statSync(state.ws.file('out/new.txt')).mode & 0o777).to.equal(0o644 & ~process.umask());
      expect(spawnSync(state.ws.file('out/run.sh'), { encoding: 'utf8' }).stdout).to.equal('hi\n');
    });
  });

  describe('a trailing "/" names a folder', () => {
    const document = (path: string, content?: string) =>
      workflow({
        inputs: { path },
        policy: { writableRoots: ['out'], approval: 'never' },
        actions: { op: { kind: content === undefined ? 'builtin.read' : 'builtin.write' } },
        tasks: [{ id: 'op', uses: 'action:op', with: { path: '${{ inputs.path }}', ...(content === undefined ? {} : { content }) } }],
      });

    it('in/a.txt/ does not read the file a.txt: the task input is refused before any effect', () => {
      state.ws.write('in/a.txt', 'the file\n');
      state.ws.write('wf.yaml', document('in/a.txt/'));
      const found = diagnosticWithCode(errorDocument(run(), 4), 'AGENTCTL_E_TASK_INPUT_INVALID');
      expect(found.message).to.contain('a path ending in "/" names a folder');
      expect(rows(state.ws.db, 'SELECT COUNT(*) AS n FROM effects')).to.deep.equal([{ n: 0 }]);
    });

    it('out/sub/ does not create a file named sub; a literal one is refused by check (exit 2)', () => {
      state.ws.write('wf.yaml', document('out/sub/', 'x'));
      diagnosticWithCode(errorDocument(run(), 4), 'AGENTCTL_E_TASK_INPUT_INVALID');
      expect(readdirSync(state.ws.dir).sort()).to.deep.equal(['state', 'wf.yaml']);
      state.ws.write(
        'wf.yaml',
        workflow({ policy: { writableRoots: ['out'] }, actions: { wr: { kind: 'builtin.write' } }, tasks: [{ id: 'w', uses: 'action:wr', with: { path: 'out/sub/', content: 'x' } }] }),
      );
      const found = diagnosticWithCode(errorDocument(runCli(['check', state.ws.file('wf.yaml'), '--output', 'json']), 2), 'AGENTCTL_E_SCHEMA');
      expect(found.path).to.equal('spec.tasks[0].with.path');
    });
  });

  describe('the child inherits no descriptor but 0, 1 and 2', () => {
    it('an fd 100 that agentctl inherited is not readable by the child', () => {
      const canary = state.ws.write('canary.txt', 'canary-7c1f\n');
      state.ws.write(
        'wf.yaml',
        shellWorkflow(
          { command: 'sh', args: ['-c', 'ls /proc/$$/fd; cat /proc/self/fd/100 2>/dev/null; true'] },
          { processAllowlist: ['sh'], approval: 'never' },
          {},
          { outputs: { out: '${{ tasks.cmd.output.stdout }}' } },
        ),
      );
      const fd = openSync(canary, 'r');
      try {
        const stdio = ['ignore', 'pipe', 'pipe', ...Array.from({ length: 97 }, () => 'ignore' as const), fd] as const;
        const result = spawnSync(process.execPath, [BIN, 'run', state.ws.file('wf.yaml'), '--db', state.ws.db, '--output', 'json'], { env: baseEnv(), stdio: [...stdio], encoding: 'utf8' });
        const document = outcome({ status: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr }, 0);
        expect(document.data.output.out).to.equal('0\n1\n2\n');
      } finally {
        closeSync(fd);
      }
    });
  });

  describe('a cwd that is a file or missing', () => {
    for (const [what, cwd] of [
      ['a file', 'notes.txt'],
      ['missing', 'no-such-folder'],
    ] as const) {
      it(`${what}: a definite policy failure naming the path, before any effect is recorded`, () => {
        state.ws.write('notes.txt', 'a file\n');
        state.ws.write('wf.yaml', shellWorkflow({ command: 'true', cwd }, { processAllowlist: ['true'], approval: 'never' }));
        const document = errorDocument(run(), 4);
        const found = diagnosticWithCode(document, 'AGENTCTL_E_POLICY_CWD_INVALID');
        expect(found.taskId).to.equal('cmd');
        expect(found.message).to.contain(`cwd "${cwd}"`).and.to.contain(what === 'a file' ? 'is not a folder' : 'does not exist');
        expect(rows(state.ws.db, 'SELECT COUNT(*) AS n FROM effects')).to.deep.equal([{ n: 0 }]);
        expect(rows(state.ws.db, 'SELECT state FROM tasks')).to.deep.equal([{ state: 'failed' }]);
      });
    }
  });

  describe('child output in human mode', () => {
    it('stderr quoted in a diagnostic has its control characters and CI commands neutralized', () => {
      const script = 'printf "\\033[2J\\033]0;title\\007gone\\n::error file=x::fake\\n##[group]g\\n" >&2; exit 1';
      state.ws.write('wf.yaml', shellWorkflow({ command: 'sh', args: ['-c', script] }, { processAllowlist: ['sh'], approval: 'never' }));
      const result = runCli(['run', state.ws.file('wf.yaml'), '--db', state.ws.db, '--output', 'human'], { env: baseEnv({ NO_COLOR: '1' }) });
      expect(result.status).to.equal(4);
      expect(result.stderr).to.contain('\\x1b[2J\\x1b]0;title\\x07gone');
      expect(result.stderr).to.contain('\\x3a:error file=x::fake');
      expect(result.stderr).to.contain('\\x23#[group]g');
      expect(result.stderr + result.stdout).not.to.match(/[\u0000-\u0008\u000b-\u001f\u007f]/);
      expect((result.stderr + result.stdout).split('\n').filter((line) => /^\s*(::|##\[)/.test(line))).to.deep.equal([]);
      // JSON mode is for programs: the recorded output keeps the bytes exactly.
      const [effect] = rows(state.ws.db, 'SELECT result_json FROM effects');
      expect(JSON.parse(effect.result_json).stderr).to.equal('\u001b[2J\u001b]0;title\u0007gone\n::error file=x::fake\n##[group]g\n');
    });
  });

  it('output cut inside a 4-byte UTF-8 character keeps every whole character before it', () => {
    state.ws.write('wf.yaml', shellWorkflow({ command: 'sh', args: ['-c', "printf a; yes \u{1f600} | tr -d '\\n'"], stdoutLimitBytes: 4096 }, { processAllowlist: ['sh'], approval: 'never' }));
    diagnosticWithCode(errorDocument(run(), 4), 'AGENTCTL_E_PROCESS_OUTPUT_LIMIT');
    const [effect] = rows(state.ws.db, 'SELECT result_json FROM effects');
    expect(JSON.parse(effect.result_json).stdout).to.equal(`a${'\u{1f600}'.repeat(1023)}`);
  });

  it('reads through a symbolic link that stays inside the workspace', () => {
    state.ws.write('data/real.txt', 'linked\n');
    symlinkSync('data/real.txt', join(state.ws.dir, 'link.txt'));
    state.ws.write('wf.yaml', workflow({ actions: { rd: { kind: 'builtin.read' } }, tasks: [{ id: 'r', uses: 'action:rd', with: { path: 'link.txt' } }], outputs: { content: '${{ tasks.r.output.content }}' } }));
    expect(outcome(run(), 0).data.output).to.deep.equal({ content: 'linked\n' });
    expect(readFileSync(state.ws.file('data/real.txt'), 'utf8')).to.equal('linked\n');
  });
});
