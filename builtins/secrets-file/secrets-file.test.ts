import { expect } from 'chai';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { SecretResolverTester } from '@agentctl/cli/testing';
import plugin from './plugin.js';

const folder = realpathSync(mkdtempSync(join(tmpdir(), 'agentctl-secret-file-')));
after(() => rmSync(folder, { recursive: true, force: true }));

// The plugin registered alone in a real host; references go through the host's secret hook, as preflight sends them.
const tester = new SecretResolverTester(plugin);

const resolve = (path: unknown, options: { roots?: string[]; checkOnly?: boolean } = {}) =>
  tester.resolve({ file: path as string }, { workspaceRoot: folder, policy: { secretFileRoots: options.roots ?? ['secrets'] }, checkOnly: options.checkOnly });

async function refusal(promise: Promise<string>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    return { code: (error as { code: string }).code, message: (error as Error).message };
  }
  throw new Error('the reference was resolved');
}

describe('builtin.secrets.file', () => {
  before(() => {
    mkdirSync(join(folder, 'secrets', 'nested'), { recursive: true });
    mkdirSync(join(folder, 'outside'));
    writeFileSync(join(folder, 'secrets', 'token'), 'file-token-1\n');
    writeFileSync(join(folder, 'secrets', 'crlf'), 'line-one\r\nline-two\r\n\r\n');
    writeFileSync(join(folder, 'secrets', 'big'), Buffer.alloc(64 * 1024 + 1, 'a'));
    writeFileSync(join(folder, 'secrets', 'exact'), Buffer.alloc(64 * 1024, 'b'));
    writeFileSync(join(folder, 'secrets', 'latin1'), Buffer.from([0x70, 0x77, 0xe9, 0x21]));
    writeFileSync(join(folder, 'outside', 'token'), 'outside-token\n');
    symlinkSync(join(folder, 'outside', 'token'), join(folder, 'secrets', 'escape'));
    symlinkSync(join(folder, 'secrets', 'token'), join(folder, 'outside', 'inward'));
    symlinkSync(join(folder, 'secrets'), join(folder, 'linked-root'));
    execFileSync('mkfifo', [join(folder, 'secrets', 'fifo')]);
  });

  it('reads a file below a root, relative to the workspace or absolute, dropping one trailing newline', async () => {
    expect(await resolve('secrets/token')).to.equal('file-token-1');
    expect(await resolve(join(folder, 'secrets', 'token'))).to.equal('file-token-1');
    expect(await resolve('secrets/crlf')).to.equal('line-one\r\nline-two\r\n');
    expect((await resolve('secrets/exact')).length).to.equal(64 * 1024);
  });

  it('resolves symlinks of the path and of the roots before judging', async () => {
    expect(await resolve('outside/inward')).to.equal('file-token-1');
    expect(await resolve('secrets/token', { roots: ['linked-root'] })).to.equal('file-token-1');
    expect(await refusal(resolve('secrets/escape'))).to.deep.include({ code: 'AGENTCTL_E_SECRET_FILE_OUTSIDE_ROOTS' });
  });

  const cases: [string, unknown, { roots?: string[] }, string][] = [
    ['a .. component', 'secrets/../secrets/token', {}, 'AGENTCTL_E_SECRET_FILE_PARENT_SEGMENT'],
    ['no secretFileRoots', 'secrets/token', { roots: [] }, 'AGENTCTL_E_SECRET_FILE_NO_ROOTS'],
    ['a file outside the roots', 'outside/token', {}, 'AGENTCTL_E_SECRET_FILE_OUTSIDE_ROOTS'],
    ['the root itself', 'secrets', {}, 'AGENTCTL_E_SECRET_FILE_OUTSIDE_ROOTS'],
    ['a folder below a root', 'secrets/nested', {}, 'AGENTCTL_E_SECRET_FILE_NOT_REGULAR'],
    ['a FIFO (without blocking)', 'secrets/fifo', {}, 'AGENTCTL_E_SECRET_FILE_NOT_REGULAR'],
    ['a device', '/dev/null', { roots: ['/dev'] }, 'AGENTCTL_E_SECRET_FILE_NOT_REGULAR'],
    ['more than 64 KiB', 'secrets/big', {}, 'AGENTCTL_E_SECRET_FILE_TOO_LARGE'],
    ['not UTF-8', 'secrets/latin1', {}, 'AGENTCTL_E_SECRET_FILE_ENCODING'],
    ['a missing file', 'secrets/none', {}, 'AGENTCTL_E_SECRET_MISSING'],
    ['not a string', 7, {}, 'AGENTCTL_E_SECRET_REFERENCE_INVALID'],
  ];
  for (const [title, path, options, code] of cases) {
    it(`refuses ${title} with ${code}, naming the path and never the content`, async () => {
      const refused = await refusal(resolve(path, options));
      expect(refused.code).to.equal(code);
      expect(refused.message).to.contain(JSON.stringify(path)).and.not.contain('aaaa').and.not.contain('file-token-1');
    });
  }

  it('an unreadable file is refused with AGENTCTL_E_SECRET_FILE_UNREADABLE, in a check too', async function () {
    if (process.getuid?.() === 0) this.skip();
    writeFileSync(join(folder, 'secrets', 'closed'), 'closed-token\n');
    chmodSync(join(folder, 'secrets', 'closed'), 0o000);
    expect((await refusal(resolve('secrets/closed'))).code).to.equal('AGENTCTL_E_SECRET_FILE_UNREADABLE');
    expect((await refusal(resolve('secrets/closed', { checkOnly: true }))).code).to.equal('AGENTCTL_E_SECRET_FILE_UNREADABLE');
  });

  it('a check stats without reading: a non-UTF-8 file is present, the rules still apply', async () => {
    expect(await resolve('secrets/latin1', { checkOnly: true })).to.equal('');
    expect((await refusal(resolve('secrets/fifo', { checkOnly: true }))).code).to.equal('AGENTCTL_E_SECRET_FILE_NOT_REGULAR');
    expect((await refusal(resolve('secrets/big', { checkOnly: true }))).code).to.equal('AGENTCTL_E_SECRET_FILE_TOO_LARGE');
    expect((await refusal(resolve('secrets/escape', { checkOnly: true }))).code).to.equal('AGENTCTL_E_SECRET_FILE_OUTSIDE_ROOTS');
  });
});
