import { expect } from 'chai';
import { ActionKindTester, runAction } from '@agentctl/cli/testing';

// Every case gets a fresh workspace holding these files, removed after it.
const NOTE = { 'note.txt': 'hello\n' };

new ActionKindTester().run('builtin.read', {
  valid: [
    {
      name: 'reads a file with its digest',
      files: NOTE,
      input: { path: 'note.txt' },
      output: { status: 'unchanged', changed: false, path: 'note.txt', content: 'hello\n', bytes: 6, sha256: '5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03' },
    },
  ],
  invalid: [
    { name: 'a .. component is refused', files: NOTE, input: { path: '../x' }, error: { code: 'AGENTCTL_E_POLICY_PATH_ESCAPE' } },
    { name: 'a symlink out of the workspace is refused', files: { 'link.txt': { symlink: '/etc/passwd' } }, input: { path: 'link.txt' }, error: { code: 'AGENTCTL_E_POLICY_PATH_ESCAPE' } },
    { name: 'an absolute path outside is refused', files: NOTE, input: { path: '/etc/hostname' }, error: { code: 'AGENTCTL_E_POLICY_PATH_ESCAPE' } },
    { name: 'a missing file fails', files: NOTE, input: { path: 'missing.txt' }, error: { code: 'AGENTCTL_E_FILE_READ' } },
    { name: 'a file that is not UTF-8 is refused, not decoded lossily', files: { 'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9]) }, input: { path: 'latin1.txt' }, error: { code: 'AGENTCTL_E_FILE_ENCODING' } },
    { name: 'a file over 1 MiB fails', files: { 'big.txt': Buffer.alloc(1024 * 1024 + 1, 'a') }, input: { path: 'big.txt' }, error: { code: 'AGENTCTL_E_FILE_TOO_LARGE' } },
    { name: 'toolsDeny applies', files: NOTE, input: { path: 'note.txt' }, policy: { toolsDeny: ['filesystem.read'] }, error: { code: 'AGENTCTL_E_POLICY_TOOL_DENIED' } },
  ],
});

describe('builtin.read ledger', () => {
  it('records one observe effect without needing approval under approval: mutations', async () => {
    const result = await runAction('builtin.read', { files: NOTE, input: { path: 'note.txt' }, policy: { approval: 'mutations' } });
    expect(result.state).to.equal('succeeded');
    const effects = result.inspection!.effects;
    expect(effects).to.have.length(1);
    expect(effects[0]).to.include({ operation: 'filesystem.read', effectClass: 'observe', state: 'succeeded' });
  });
});
