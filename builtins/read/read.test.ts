import { expect } from 'chai';
import { mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAction, testActionKind } from 'agentctl/sdk/testing';

const folder = realpathSync(mkdtempSync(join(tmpdir(), 'agentctl-read-')));
const outside = realpathSync(mkdtempSync(join(tmpdir(), 'agentctl-read-outside-')));
writeFileSync(join(folder, 'note.txt'), 'hello\n');
writeFileSync(join(folder, 'big.txt'), Buffer.alloc(1024 * 1024 + 1, 'a'));
writeFileSync(join(outside, 'secret.txt'), 'outside');
symlinkSync(join(outside, 'secret.txt'), join(folder, 'link.txt'));
after(() => {
  rmSync(folder, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

testActionKind('builtin.read', {
  valid: [
    {
      name: 'reads a file with its digest',
      workspace: folder,
      input: { path: 'note.txt' },
      output: { path: 'note.txt', content: 'hello\n', bytes: 6, sha256: '5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03' },
    },
  ],
  invalid: [
    { name: 'a .. component is refused', workspace: folder, input: { path: '../x' }, code: 'AGENTCTL_E_POLICY_PATH_ESCAPE' },
    { name: 'a symlink out of the workspace is refused', workspace: folder, input: { path: 'link.txt' }, code: 'AGENTCTL_E_POLICY_PATH_ESCAPE' },
    { name: 'an absolute path outside is refused', workspace: folder, input: { path: '/etc/hostname' }, code: 'AGENTCTL_E_POLICY_PATH_ESCAPE' },
    { name: 'a missing file fails', workspace: folder, input: { path: 'missing.txt' }, code: 'AGENTCTL_E_FILE_READ' },
    { name: 'a file over 1 MiB fails', workspace: folder, input: { path: 'big.txt' }, code: 'AGENTCTL_E_FILE_TOO_LARGE' },
    { name: 'toolsDeny applies', workspace: folder, input: { path: 'note.txt' }, policy: { toolsDeny: ['filesystem.read'] }, code: 'AGENTCTL_E_POLICY_TOOL_DENIED' },
  ],
});

describe('builtin.read ledger', () => {
  it('records one observe effect without needing approval under approval: mutations', async () => {
    const result = await runAction('builtin.read', { workspace: folder, input: { path: 'note.txt' }, policy: { approval: 'mutations' } });
    expect(result.state).to.equal('succeeded');
    const effects = result.inspection!.effects;
    expect(effects).to.have.length(1);
    expect(effects[0]).to.include({ operation: 'filesystem.read', effectClass: 'observe', state: 'succeeded' });
  });
});
