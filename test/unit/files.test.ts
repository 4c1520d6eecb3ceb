// The host's file service: reads confined to the workspace root, writes to the writable roots, at the system call.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { createFileService } from '../../core/files/service.js';
import { isEffectFailure, type FileService } from '@agentctl/sdk';

/** The code of what `promise` rejects with (asserting it rejects with an EffectFailure `failed`). */
async function failureCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    expect(isEffectFailure(error), String(error)).to.equal(true);
    expect((error as { outcome: string }).outcome).to.equal('failed');
    return String((error as { code: string }).code);
  }
  throw new Error('expected a failure');
}

describe('file service', () => {
  let base: string;
  let ws: string;
  let outside: string;
  let files: FileService;
  const at = (...parts: string[]) => join(ws, ...parts);

  beforeEach(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'agentctl-files-')));
    ws = join(base, 'ws');
    outside = join(base, 'outside');
    mkdirSync(join(ws, 'in', 'real'), { recursive: true });
    mkdirSync(join(ws, 'out', 'real'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(at('in', 'real', 'a.txt'), 'inside\n');
    writeFileSync(join(outside, 'a.txt'), 'OUTSIDE\n');
    files = createFileService({ workspaceRoot: ws, writableRoots: ['out'] });
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  describe('read', () => {
    it('reads a file by a relative or an absolute path inside the root', async () => {
      expect((await files.read('in/real/a.txt', { maxBytes: 100 })).toString()).to.equal('inside\n');
      expect((await files.read(at('in', 'real', 'a.txt'), { maxBytes: 100 })).toString()).to.equal('inside\n');
    });

    it('follows symbolic links that stay inside the root, relative or absolute, to a file or a folder', async () => {
      symlinkSync('real/a.txt', at('in', 'rel.txt'));
      symlinkSync(at('in', 'real'), at('in', 'abs'));
      symlinkSync('../in/./real/../real', at('out', 'up'));
      expect((await files.read('in/rel.txt', { maxBytes: 100 })).toString()).to.equal('inside\n');
      expect((await files.read('in/abs/a.txt', { maxBytes: 100 })).toString()).to.equal('inside\n');
      expect((await files.read('out/up/a.txt', { maxBytes: 100 })).toString()).to.equal('inside\n');
    });

    it('refuses a symbolic link, a folder link or an absolute path that leads out of the root', async () => {
      symlinkSync(join(outside, 'a.txt'), at('in', 'file-link'));
      symlinkSync(outside, at('in', 'folder-link'));
      symlinkSync('../../../outside', at('in', 'real', 'up-link'));
      expect(await failureCode(files.read('in/file-link', { maxBytes: 100 }))).to.equal('AGENTCTL_E_POLICY_PATH_ESCAPE');
      expect(await failureCode(files.read('in/folder-link/a.txt', { maxBytes: 100 }))).to.equal('AGENTCTL_E_POLICY_PATH_ESCAPE');
      expect(await failureCode(files.read('in/real/up-link/a.txt', { maxBytes: 100 }))).to.equal('AGENTCTL_E_POLICY_PATH_ESCAPE');
      expect(await failureCode(files.read(join(outside, 'a.txt'), { maxBytes: 100 }))).to.equal('AGENTCTL_E_POLICY_PATH_ESCAPE');
      expect(await failureCode(files.read('in/../../outside/a.txt', { maxBytes: 100 }))).to.equal('AGENTCTL_E_POLICY_PATH_ESCAPE');
    });

    it('a trailing "/" names a folder: the file before it is not read', async () => {
      expect(await failureCode(files.read('in/real/a.txt/', { maxBytes: 100 }))).to.equal('AGENTCTL_E_FILE_READ');
      expect(await failureCode(files.read('in/real/a.txt/.', { maxBytes: 100 }))).to.equal('AGENTCTL_E_FILE_READ');
      expect(await failureCode(files.read('in/real', { maxBytes: 100 }))).to.equal('AGENTCTL_E_FILE_READ');
      expect(await failureCode(files.read(ws, { maxBytes: 100 }))).to.equal('AGENTCTL_E_FILE_READ');
      expect(await failureCode(files.writeAtomic(ws, Buffer.from('x')))).to.equal('AGENTCTL_E_FILE_WRITE');
    });

    it('refuses a link loop, a missing file and a file over the limit', async () => {
      symlinkSync('loop-b', at('in', 'loop-a'));
      symlinkSync('loop-a', at('in', 'loop-b'));
      expect(await failureCode(files.read('in/loop-a', { maxBytes: 100 }))).to.equal('AGENTCTL_E_FILE_READ');
      expect(await failureCode(files.read('in/missing.txt', { maxBytes: 100 }))).to.equal('AGENTCTL_E_FILE_READ');
      expect(await failureCode(files.read('in/real/a.txt', { maxBytes: 3 }))).to.equal('AGENTCTL_E_FILE_TOO_LARGE');
    });
  });

  describe('write', () => {
    it('creates missing folders and a new file with 0644 minus the umask', async () => {
      await files.writeAtomic('out/new/deeper/n.txt', Buffer.from('new\n'));
      expect(readFileSync(at('out', 'new', 'deeper', 'n.txt'), 'utf8')).to.equal('new\n');
      expect(statSync(at('out', 'new', 'deeper', 'n.txt')).mode & 0o777).to.equal(0o644 & ~process.umask());
      expect(readdirSync(at('out', 'new', 'deeper'))).to.deep.equal(['n.txt']);
    });

    it('keeps the permission bits of the file it replaces', async () => {
      writeFileSync(at('out', 'private.txt'), 'old');
      chmodSync(at('out', 'private.txt'), 0o600);
      writeFileSync(at('out', 'script.sh'), 'old');
      chmodSync(at('out', 'script.sh'), 0o755);
      await files.writeAtomic('out/private.txt', Buffer.from('new'));
      await files.writeAtomic('out/script.sh', Buffer.from('#!/bin/sh\n'));
      expect(statSync(at('out', 'private.txt')).mode & 0o777).to.equal(0o600);
      expect(statSync(at('out', 'script.sh')).mode & 0o777).to.equal(0o755);
      expect(readFileSync(at('out', 'private.txt'), 'utf8')).to.equal('new');
    });

    it('follows a link that stays below a writable root, and refuses one that leaves it, creating nothing there', async () => {
      symlinkSync('real', at('out', 'latest'));
      symlinkSync('../in', at('out', 'to-in'));
      symlinkSync(outside, at('out', 'away'));
      await files.writeAtomic('out/latest/x.txt', Buffer.from('x'));
      expect(readFileSync(at('out', 'real', 'x.txt'), 'utf8')).to.equal('x');
      expect(await failureCode(files.writeAtomic('out/to-in/made/x.txt', Buffer.from('x')))).to.equal('AGENTCTL_E_POLICY_NOT_WRITABLE');
      expect(readdirSync(at('in'))).to.deep.equal(['real']);
      expect(await failureCode(files.writeAtomic('out/away/x.txt', Buffer.from('x')))).to.equal('AGENTCTL_E_POLICY_PATH_ESCAPE');
      expect(readdirSync(outside)).to.deep.equal(['a.txt']);
    });

    it('never writes through a link at the target, and refuses a writable root that is a link', async () => {
      symlinkSync(join(outside, 'a.txt'), at('out', 'target.txt'));
      expect(await failureCode(files.writeAtomic('out/target.txt', Buffer.from('x')))).to.equal('AGENTCTL_E_FILE_WRITE');
      expect(await failureCode(files.contentEquals('out/target.txt', Buffer.from('x')))).to.equal('AGENTCTL_E_FILE_WRITE');
      expect(readFileSync(join(outside, 'a.txt'), 'utf8')).to.equal('OUTSIDE\n');
      symlinkSync('out', at('linked-root'));
      const linked = createFileService({ workspaceRoot: ws, writableRoots: ['linked-root'] });
      expect(await failureCode(linked.writeAtomic('linked-root/x.txt', Buffer.from('x')))).to.equal('AGENTCTL_E_POLICY_NOT_WRITABLE');
    });

    it('a sibling whose name starts with a writable root\'s is outside it: out/ does not cover outer/ or out-2/', async () => {
      for (const sibling of ['outer', 'out-2', 'out.bak']) {
        mkdirSync(at(sibling));
        expect(await failureCode(files.writeAtomic(`${sibling}/x.txt`, Buffer.from('x'))), sibling).to.equal('AGENTCTL_E_POLICY_NOT_WRITABLE');
        expect(await failureCode(files.writeAtomic(at(sibling, 'x.txt'), Buffer.from('x'))), `${sibling} absolute`).to.equal('AGENTCTL_E_POLICY_NOT_WRITABLE');
        expect(await failureCode(files.writeAtomic(`${sibling}/made/x.txt`, Buffer.from('x'))), `${sibling} new folder`).to.equal('AGENTCTL_E_POLICY_NOT_WRITABLE');
        expect(readdirSync(at(sibling)), sibling).to.deep.equal([]);
      }
      // A root written with a trailing "/" or "./" is the same root, and still only that one.
      const spelled = createFileService({ workspaceRoot: ws, writableRoots: ['./out/'] });
      expect(await failureCode(spelled.writeAtomic('outer/x.txt', Buffer.from('x')))).to.equal('AGENTCTL_E_POLICY_NOT_WRITABLE');
      await spelled.writeAtomic('out/x.txt', Buffer.from('x'));
      expect(readFileSync(at('out', 'x.txt'), 'utf8')).to.equal('x');
    });

    it('a trailing "/" names a folder: no file of that name is created', async () => {
      expect(await failureCode(files.writeAtomic('out/sub/', Buffer.from('x')))).to.equal('AGENTCTL_E_FILE_WRITE');
      expect(await failureCode(files.contentEquals('out/sub/', Buffer.from('x')))).to.equal('AGENTCTL_E_FILE_WRITE');
      expect(lstatSync(at('out')).isDirectory()).to.equal(true);
      expect(readdirSync(at('out'))).to.deep.equal(['real']);
    });

    it('contentEquals: false when missing or different, true for the same bytes', async () => {
      expect(await files.contentEquals('out/none/x.txt', Buffer.from('x'))).to.equal(false);
      writeFileSync(at('out', 'same.txt'), 'same');
      expect(await files.contentEquals('out/same.txt', Buffer.from('same'))).to.equal(true);
      expect(await files.contentEquals('out/same.txt', Buffer.from('diff'))).to.equal(false);
      expect(await files.contentEquals('out/same.txt', Buffer.from('longer'))).to.equal(false);
    });
  });

  describe('symbolic links swapped while reads and writes run', () => {
    let swapper: ChildProcess | undefined;
    afterEach(() => {
      if (swapper?.pid !== undefined && swapper.exitCode === null) process.kill(swapper.pid, 'SIGKILL');
    });

    it('no read returns a file outside the root and no write creates or changes one', async function () {
      this.timeout(60_000);
      writeFileSync(join(outside, 't.txt'), 'outside target\n');
      writeFileSync(at('out', 'real', 't.txt'), 'inside target\n');
      // Each link flips between a target inside the root and one outside it, as fast as the child can rename.
      const links = [
        [at('in', 'd'), 'real', outside],
        [at('in', 'f.txt'), 'real/a.txt', join(outside, 'a.txt')],
        [at('out', 'd'), 'real', outside],
        [at('out', 'real', 't.txt'), 'u.txt', join(outside, 't.txt')],
      ];
      const script = `
        const fs = require('node:fs');
        const links = JSON.parse(process.argv[1]);
        for (let i = 0; ; i += 1) for (const [link, inside, outside] of links) {
          const tmp = link + '.swap';
          fs.rmSync(tmp, { force: true });
          fs.symlinkSync(i % 2 ? outside : inside, tmp);
          fs.renameSync(tmp, link);
        }`;
      swapper = spawn(process.execPath, ['-e', script, JSON.stringify(links)], { stdio: 'ignore' });
      const deadline = Date.now() + 10_000;
      while (!lstatSync(at('out', 'd'), { throwIfNoEntry: false })) {
        if (Date.now() > deadline) throw new Error('the swapper did not start');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }

      const outcomes: { op: string; content?: string; code?: string }[] = [];
      const attempt = async (op: string, run: () => Promise<Buffer | void>) => {
        try {
          const result = await run();
          outcomes.push({ op, ...(result ? { content: result.toString() } : {}) });
        } catch (error) {
          expect(isEffectFailure(error), String(error)).to.equal(true);
          outcomes.push({ op, code: String((error as { code: string }).code) });
        }
      };
      for (let round = 0; round < 25; round += 1) {
        await Promise.all(
          Array.from({ length: 4 }, (_, index) => [
            attempt('read-folder', () => files.read('in/d/a.txt', { maxBytes: 100 })),
            attempt('read-file', () => files.read('in/f.txt', { maxBytes: 100 })),
            attempt('write-folder', () => files.writeAtomic(`out/d/w${round}-${index}.txt`, Buffer.from('written'))),
            attempt('write-file', () => files.writeAtomic('out/real/t.txt', Buffer.from('replaced'))),
          ]).flat(),
        );
      }
      process.kill(swapper.pid!, 'SIGKILL');

      expect(outcomes).to.have.length(400);
      expect(outcomes.filter((entry) => entry.content === 'OUTSIDE\n')).to.deep.equal([]);
      expect(readdirSync(outside).sort()).to.deep.equal(['a.txt', 't.txt']);
      expect(readFileSync(join(outside, 'a.txt'), 'utf8')).to.equal('OUTSIDE\n');
      expect(readFileSync(join(outside, 't.txt'), 'utf8')).to.equal('outside target\n');
      for (const entry of outcomes) {
        if (entry.code) expect(['AGENTCTL_E_POLICY_PATH_ESCAPE', 'AGENTCTL_E_FILE_READ', 'AGENTCTL_E_FILE_WRITE']).to.include(entry.code, JSON.stringify(entry));
        else if (entry.op.startsWith('read')) expect(entry.content).to.equal('inside\n');
      }
      // Both sides of the race happened: some operations went through, some were refused.
      const reads = outcomes.filter((entry) => entry.op === 'read-folder');
      expect(reads.some((entry) => entry.content === 'inside\n')).to.equal(true);
      expect(reads.some((entry) => entry.code === 'AGENTCTL_E_POLICY_PATH_ESCAPE')).to.equal(true);
    });
  });

  describe('collect', () => {
    it('reads a file below a writable root and reports where it physically is, its digest and size', async () => {
      writeFileSync(at('out', 'real', 'made.txt'), 'made');
      symlinkSync('real', at('out', 'alias'));
      expect(await files.collect('out/alias/made.txt', { maxBytes: 100 })).to.deep.equal({
        path: 'out/real/made.txt',
        digest: 'sha256:ea0890697a77af0a2e054cccec587c8a42feb5cf38e778c6c6e2a96bfb945c0b',
        size: 4,
      });
    });

    it('refuses a missing file, a folder, a link at the target, a file outside the writable roots, and one over the limit', async () => {
      expect(await failureCode(files.collect('out/none.txt', { maxBytes: 100 }))).to.equal('AGENTCTL_E_ARTIFACT_MISSING');
      expect(await failureCode(files.collect('out/no/folder.txt', { maxBytes: 100 }))).to.equal('AGENTCTL_E_ARTIFACT_MISSING');
      expect(await failureCode(files.collect('out/real', { maxBytes: 100 }))).to.equal('AGENTCTL_E_ARTIFACT_MISSING');
      symlinkSync(join(outside, 'a.txt'), at('out', 'link.txt'));
      expect(await failureCode(files.collect('out/link.txt', { maxBytes: 100 }))).to.equal('AGENTCTL_E_ARTIFACT_MISSING');
      expect(await failureCode(files.collect('in/real/a.txt', { maxBytes: 100 }))).to.equal('AGENTCTL_E_POLICY_NOT_WRITABLE');
      symlinkSync(outside, at('out', 'away'));
      expect(await failureCode(files.collect('out/away/a.txt', { maxBytes: 100 }))).to.equal('AGENTCTL_E_POLICY_PATH_ESCAPE');
      writeFileSync(at('out', 'big.txt'), 'x'.repeat(101));
      expect(await failureCode(files.collect('out/big.txt', { maxBytes: 100 }))).to.equal('AGENTCTL_E_FILE_TOO_LARGE');
    });

    it('hands the bytes to the artifact sink and records them under the physical path', async () => {
      const recorded: [string, string][] = [];
      const sink = { ingest: async (bytes: Uint8Array) => ({ digest: `bytes:${Buffer.from(bytes).toString()}`, size: bytes.length }), record: (path: string, blob: { digest: string }) => void recorded.push([path, blob.digest]) };
      const kept = createFileService({ workspaceRoot: ws, writableRoots: ['out'], artifacts: sink });
      writeFileSync(at('out', 'real', 'made.txt'), 'made');
      expect(await kept.collect('./out/real/made.txt', { maxBytes: 100 })).to.deep.equal({ path: 'out/real/made.txt', digest: 'bytes:made', size: 4 });
      expect(recorded).to.deep.equal([['out/real/made.txt', 'bytes:made']]);
    });
  });
});
