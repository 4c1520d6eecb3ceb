// Node's module compile cache (Node 22.1+) lives in the user's cache folder; a folder that cannot be used never stops
// a command, and a runtime without the cache gets no folder at all.
import module from 'node:module';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { compileCacheFolder } from '../../core/cli/compile-cache.js';
import { baseEnv, runCli, workspace } from '../support/cli.js';
import { outcome, shellWorkflow } from './helpers.js';

const hasCompileCache = typeof (module as { enableCompileCache?: unknown }).enableCompileCache === 'function';

describe('module compile cache', () => {
  let ws: ReturnType<typeof workspace>;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  it('is kept under XDG_CACHE_HOME, else ~/.cache; Node\'s own NODE_COMPILE_CACHE wins', () => {
    const home = () => '/home/os-user';
    expect(compileCacheFolder({ XDG_CACHE_HOME: '/x/cache', HOME: '/home/u' }, home)).to.equal('/x/cache/agentctl/compile-cache');
    expect(compileCacheFolder({ XDG_CACHE_HOME: 'relative/cache', HOME: '/home/u' }, home)).to.equal('/home/u/.cache/agentctl/compile-cache');
    expect(compileCacheFolder({}, home)).to.equal('/home/os-user/.cache/agentctl/compile-cache');
    expect(compileCacheFolder({ NODE_COMPILE_CACHE: '/elsewhere', XDG_CACHE_HOME: '/x/cache' }, home)).to.equal(undefined);
    expect(compileCacheFolder({ HOME: '' }, () => { throw new Error('no home'); })).to.equal(undefined);
  });

  it('a cache folder that cannot be created leaves a run as it is', () => {
    ws.write('wf.yaml', shellWorkflow({ command: 'true' }, { processAllowlist: ['true'], approval: 'never' }));
    ws.write('not-a-folder', 'a file where the cache folder would go');
    const blocked = join(ws.dir, 'not-a-folder', 'cache');
    const result = runCli(['run', ws.file('wf.yaml'), '--db', ws.file('state.db'), '--workspace', ws.dir, '--output', 'json'], { cwd: ws.dir, env: baseEnv({ XDG_CACHE_HOME: blocked, HOME: blocked }) });
    expect(result.stderr).to.equal('');
    expect(outcome(result, 0).data.state).to.equal('succeeded');
  });

  it(hasCompileCache ? 'fills the folder under XDG_CACHE_HOME on this runtime' : 'creates no folder on a runtime without the cache (Node 20)', () => {
    const cache = join(ws.dir, 'xdg');
    const result = runCli(['version', '--output', 'json'], { cwd: ws.dir, env: baseEnv({ XDG_CACHE_HOME: cache }) });
    expect(outcome(result, 0).kind).to.equal('Version');
    const folder = join(cache, 'agentctl', 'compile-cache');
    if (hasCompileCache) expect(readdirSync(folder)).to.not.be.empty;
    else expect(existsSync(cache)).to.equal(false);
  });
});
