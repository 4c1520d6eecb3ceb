import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ActionKindTester, runAction, useWorkspace } from '@agentctl/cli/testing';

new ActionKindTester().run('builtin.write', {
  valid: [
    {
      name: 'writes below a writable root, creating folders',
      policy: { writableRoots: ['out'] },
      input: { path: 'out/a/b.txt', content: 'x' },
      output: { status: 'changed', changed: true, path: 'out/a/b.txt', bytes: 1, sha256: '2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881' },
    },
  ],
  invalid: [
    { name: 'no writable roots: writes are disabled', input: { path: 'out/x.txt', content: 'x' }, error: { code: 'AGENTCTL_E_POLICY_NOT_WRITABLE' } },
    { name: 'outside the writable root', policy: { writableRoots: ['out'] }, input: { path: 'other/x.txt', content: 'x' }, error: { code: 'AGENTCTL_E_POLICY_NOT_WRITABLE' } },
    { name: 'a .. component', policy: { writableRoots: ['out'] }, input: { path: 'out/../x.txt', content: 'x' }, error: { code: 'AGENTCTL_E_POLICY_PATH_ESCAPE' } },
    { name: 'content must be a string', policy: { writableRoots: ['out'] }, input: { path: 'out/x.txt', content: 5 }, error: { code: 'AGENTCTL_E_SCHEMA' } },
    { name: 'approval pauses a write under approval: mutations', policy: { writableRoots: ['out'], approval: 'mutations' }, input: { path: 'out/p.txt', content: 'x' }, error: { code: 'AGENTCTL_E_APPROVAL_PENDING' } },
  ],
});

describe('builtin.write atomicity and idempotency', () => {
  const workspace = useWorkspace();

  it('writes the content, leaves no temp file, and records no effect when unchanged', async () => {
    const first = await runAction('builtin.write', { workspace: workspace.path, policy: { writableRoots: ['out'] }, input: { path: 'out/r.txt', content: 'report\n' } });
    expect(first.output).to.deep.include({ path: 'out/r.txt', changed: true, bytes: 7 });
    expect(first.inspection!.effects.map((effect) => effect.state)).to.deep.equal(['succeeded']);
    expect(readFileSync(join(workspace.path, 'out/r.txt'), 'utf8')).to.equal('report\n');
    expect(readdirSync(join(workspace.path, 'out')).filter((name) => name.endsWith('.tmp'))).to.deep.equal([]);

    const second = await runAction('builtin.write', { workspace: workspace.path, policy: { writableRoots: ['out'], approval: 'always' }, input: { path: 'out/r.txt', content: 'report\n' } });
    expect(second.state).to.equal('succeeded');
    expect(second.output).to.deep.include({ changed: false });
    expect(second.inspection!.effects).to.deep.equal([]);
  });
});
