import { expect } from 'chai';
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAction, testActionKind } from 'agentctl/sdk/testing';

const folder = realpathSync(mkdtempSync(join(tmpdir(), 'agentctl-write-')));
after(() => rmSync(folder, { recursive: true, force: true }));

testActionKind('builtin.write', {
  valid: [{ name: 'writes below a writable root', workspace: folder, policy: { writableRoots: ['out'] }, input: { path: 'out/a/b.txt', content: 'x' } }],
  invalid: [
    { name: 'no writable roots: writes are disabled', workspace: folder, input: { path: 'out/x.txt', content: 'x' }, code: 'AGENTCTL_E_POLICY_NOT_WRITABLE' },
    { name: 'outside the writable root', workspace: folder, policy: { writableRoots: ['out'] }, input: { path: 'other/x.txt', content: 'x' }, code: 'AGENTCTL_E_POLICY_NOT_WRITABLE' },
    { name: 'a .. component', workspace: folder, policy: { writableRoots: ['out'] }, input: { path: 'out/../x.txt', content: 'x' }, code: 'AGENTCTL_E_POLICY_PATH_ESCAPE' },
    { name: 'content must be a string', workspace: folder, policy: { writableRoots: ['out'] }, input: { path: 'out/x.txt', content: 5 }, code: 'AGENTCTL_E_SCHEMA' },
    { name: 'approval pauses a write under approval: mutations', workspace: folder, policy: { writableRoots: ['out'], approval: 'mutations' }, input: { path: 'out/p.txt', content: 'x' }, code: 'AGENTCTL_E_APPROVAL_PENDING' },
  ],
});

describe('builtin.write atomicity and idempotency', () => {
  it('writes the content, leaves no temp file, and records no effect when unchanged', async () => {
    const first = await runAction('builtin.write', { workspace: folder, policy: { writableRoots: ['out'] }, input: { path: 'out/r.txt', content: 'report\n' } });
    expect(first.output).to.deep.include({ path: 'out/r.txt', changed: true, bytes: 7 });
    expect(first.inspection!.effects.map((effect) => effect.state)).to.deep.equal(['succeeded']);
    expect(readFileSync(join(folder, 'out/r.txt'), 'utf8')).to.equal('report\n');
    expect(readdirSync(join(folder, 'out')).filter((name) => name.endsWith('.tmp'))).to.deep.equal([]);

    const second = await runAction('builtin.write', { workspace: folder, policy: { writableRoots: ['out'], approval: 'always' }, input: { path: 'out/r.txt', content: 'report\n' } });
    expect(second.state).to.equal('succeeded');
    expect(second.output).to.deep.include({ changed: false });
    expect(second.inspection!.effects).to.deep.equal([]);
  });
});
