// The state paths in the policy request: what a plugin's policy tap sees, and how the core phase judges them.
import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { expect } from 'chai';
import { definePlugin, type PolicyRequest, type ResolvedPolicy } from '@agentctl/sdk';
import { runAction } from '../../core/testing/index.js';
import { corePolicy } from '../../core/policy/engine.js';
import { statePaths } from '../../core/store/state-paths.js';

describe('state paths', () => {
  let dir: string;
  beforeEach(() => (dir = realpathSync(mkdtempSync(join(tmpdir(), 'agentctl-state-paths-')))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a plugin policy tap sees the database, its companions and the artifact store as frozen absolute paths', async () => {
    const seen: (readonly string[])[] = [];
    const spy = definePlugin({ name: 'spy', version: '1.0.0', hostRange: '*', setup: (api) => api.hooks.policy.tap({ stage: 'review' }, (request) => void seen.push(request.statePaths)) });
    const workspace = dir;
    writeFileSync(join(workspace, 'x.txt'), 'x\n');
    const result = await runAction('builtin.read', { input: { path: 'x.txt' }, workspace }, [spy]);
    expect(result.state).to.equal('succeeded');
    expect(seen).to.have.length(1);
    const paths = seen[0]!;
    expect(Object.isFrozen(paths)).to.equal(true);
    expect(paths.every((path) => isAbsolute(path))).to.equal(true);
    // The database's folder holds its companions; the store is artifacts/sha256/ in it (the rest of artifacts/ is not state).
    const folder = dirname(paths[0]!);
    expect(paths.map((path) => path.slice(folder.length + 1))).to.deep.equal(['runtime.db', 'runtime.db-wal', 'runtime.db-shm', 'runtime.db-journal', join('artifacts', 'sha256')]);
  });

  it('a symlinked database name protects the companions of the real file too', () => {
    mkdirSync(join(dir, 'real'));
    writeFileSync(join(dir, 'real', 'ledger.db'), '');
    symlinkSync(join(dir, 'real', 'ledger.db'), join(dir, 'link.db'));
    const paths = statePaths(join(dir, 'link.db'));
    expect(paths).to.include.members([join(dir, 'real', 'ledger.db'), join(dir, 'real', 'ledger.db-wal'), join(dir, 'real', 'artifacts', 'sha256'), join(dir, 'link.db-wal'), join(dir, 'artifacts', 'sha256')]);
  });

  it('the core phase denies a hard link to the database, and allows a name that only starts like it', () => {
    mkdirSync(join(dir, 'state'));
    writeFileSync(join(dir, 'state', 'runtime.db'), 'ledger');
    linkSync(join(dir, 'state', 'runtime.db'), join(dir, 'hard.db'));
    writeFileSync(join(dir, 'state', 'runtime.db.bak'), 'copy');
    const request = (path: string): PolicyRequest => ({
      runId: 'run_x',
      taskId: 't',
      kind: 'builtin.read',
      operation: 'filesystem.read',
      access: { tool: 'filesystem.read', reads: [path] },
      profile: { effectClass: 'observe', risk: 'low', idempotency: 'idempotent' },
      policy: { toolsAllow: [], toolsDeny: [], processAllowlist: [], environmentAllowlist: [], writableRoots: [], approval: 'never' } as unknown as ResolvedPolicy,
      workspaceRoot: dir,
      statePaths: statePaths(join(dir, 'state', 'runtime.db')),
    });
    const verdict = corePolicy(request('hard.db'));
    expect(verdict.decision).to.equal('deny');
    expect(verdict.decision === 'deny' && verdict.diagnostic.code).to.equal('AGENTCTL_E_POLICY_STATE_PATH');
    expect(corePolicy(request('state/runtime.db.bak')).decision).to.equal('allow');
    expect(corePolicy(request('state')).decision).to.equal('allow');
  });
});
