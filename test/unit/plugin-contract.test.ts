// The plugin contract: policy plugins can only tighten, one owner per key, declared error codes, the isolation seam.
// Each case runs a real host, ledger and workspace through the test kit.
import { expect } from 'chai';
import { z } from 'zod';
// The host's plugin contract: plugins registered as embedded ones (main(args, {plugins})), not as packs.
import { embeddedTestHost as createTestHost } from '../../core/testing/host.js';
import { runEmbedded as runAction } from '../../core/testing/run-action.js';
import { AgentctlError, defineActionKind, definePlugin, diagnostic, type PluginApi } from '@agentctl/sdk';
import { codeOf } from '../support/errors.js';

const plugin = (name: string, setup: (api: PluginApi) => void, extra: Partial<Parameters<typeof definePlugin>[0]> = {}) =>
  definePlugin({ name, version: '1.0.0', hostRange: '*', setup, ...extra });

const shellCase = (command: string, policy: Record<string, unknown>) => ({ action: { command, args: [] }, policy });

describe('plugin contract: policy plugins can only tighten', () => {
  it('an allow at the earliest stage cannot run a command outside processAllowlist', async () => {
    const lenient = plugin('lenient', (api) => api.hooks.policy.tapPromise({ stage: 'security' }, async () => ({ decision: 'allow' }) as never));
    const result = await runAction('builtin.shell.exec', shellCase('true', { processAllowlist: [] }), [lenient]);
    expect(result.code).to.equal('AGENTCTL_E_POLICY_PROCESS_DENIED');
    expect(result.inspection!.effects).to.deep.equal([]);
  });

  it('an allow cannot skip approval', async () => {
    const lenient = plugin('lenient', (api) => api.hooks.policy.tap('lenient', () => ({ decision: 'allow' }) as never));
    const result = await runAction('builtin.shell.exec', shellCase('true', { processAllowlist: ['true'], approval: 'mutations', nonInteractive: 'pause' }), [lenient]);
    expect(result.state).to.equal('paused');
    expect(result.code).to.equal('AGENTCTL_E_APPROVAL_PENDING');
    expect(result.inspection!.effects.map((effect) => effect.state)).to.deep.equal(['waiting_for_approval']);
  });

  it('a plugin can require approval for an effect the core allows', async () => {
    const strict = plugin('strict', (api) => api.hooks.policy.tap({ stage: 'review' }, (request) => (request.operation === 'filesystem.read' ? { decision: 'needs_approval', reason: 'reads are reviewed' } : undefined)));
    const result = await runAction('builtin.read', { input: { path: 'missing.txt' }, policy: { approval: 'never', nonInteractive: 'pause' } }, [strict]);
    expect(result.state).to.equal('paused');
    const approval = result.inspection!.approvals[0]!;
    expect(approval.reason).to.contain('reads are reviewed').and.to.contain('plugin strict');
  });

  it('a deny and a needs_approval end deny in every order, stage and core verdict', async () => {
    const stages = ['security', 'default', 'review'] as const;
    for (const denyStage of stages) {
      for (const askStage of stages) {
        // Registration order decides the order within one stage: try both.
        for (const denyFirst of [true, false]) {
          for (const approval of ['never', 'always'] as const) {
            const deny = plugin('denier', (api) => api.hooks.policy.tap({ stage: denyStage }, () => ({ decision: 'deny', diagnostic: diagnostic('AGENTCTL_E_POLICY_TOOL_DENIED', { message: 'denied by the security plugin' }) })));
            const ask = plugin('asker', (api) => api.hooks.policy.tap({ stage: askStage }, () => ({ decision: 'needs_approval', reason: 'ask first' })));
            const order = denyFirst ? [deny, ask] : [ask, deny];
            const result = await runAction('builtin.read', { input: { path: 'x' }, policy: { approval, nonInteractive: 'pause' } }, order);
            const where = `deny at ${denyStage}, ask at ${askStage}, ${denyFirst ? 'deny' : 'ask'} registered first, approval ${approval}`;
            expect(result.state, where).to.equal('failed');
            expect(result.diagnostics[0], where).to.include({ code: 'AGENTCTL_E_POLICY_TOOL_DENIED', plugin: 'denier' });
            expect(result.inspection!.approvals, where).to.deep.equal([]);
          }
        }
      }
    }
  });

  it('a denial names the plugin; the most restrictive answer wins over an earlier approval demand', async () => {
    const deny = plugin('denier', (api) => api.hooks.policy.tap({ stage: 'review' }, () => ({ decision: 'deny', diagnostic: diagnostic('AGENTCTL_E_POLICY_TOOL_DENIED', { message: 'not today' }) })));
    const ask = plugin('asker', (api) => api.hooks.policy.tap({ stage: 'security' }, () => ({ decision: 'needs_approval', reason: 'ask first' })));
    const result = await runAction('builtin.read', { input: { path: 'x' }, policy: { approval: 'never' } }, [ask, deny]);
    expect(result.state).to.equal('failed');
    expect(result.diagnostics[0]).to.include({ code: 'AGENTCTL_E_POLICY_TOOL_DENIED', message: 'not today', plugin: 'denier', hook: 'policy' });
  });

  it('a policy plugin denies with a code it declared, and the denial names it', async () => {
    const guard = plugin('guard', (api) => api.hooks.policy.tap('guard', () => ({ decision: 'deny', diagnostic: diagnostic('GUARD_E_FROZEN', { message: 'change freeze' }) })), {
      errorCodes: { GUARD_E_FROZEN: { exitCode: 3, description: 'Changes are frozen.' } },
    });
    const result = await runAction('builtin.read', { input: { path: 'x' } }, [guard]);
    expect(result.state).to.equal('failed');
    expect(result.diagnostics[0]).to.include({ code: 'GUARD_E_FROZEN', plugin: 'guard', hook: 'policy', message: 'change freeze' });
  });

  it('a malformed vote, or a denial with an undeclared code, denies', async () => {
    const odd = plugin('odd', (api) => api.hooks.policy.tap('odd', () => ({ decision: 'maybe' }) as never));
    expect((await runAction('builtin.read', { input: { path: 'x' } }, [odd])).code).to.equal('AGENTCTL_E_POLICY_NO_VERDICT');
    const sloppy = plugin('sloppy', (api) => api.hooks.policy.tap('sloppy', () => ({ decision: 'deny', diagnostic: diagnostic('SLOPPY_E_NOPE', { message: 'nope' }) })));
    const result = await runAction('builtin.read', { input: { path: 'x' } }, [sloppy]);
    expect(result.code).to.equal('AGENTCTL_E_PLUGIN');
    expect(result.diagnostics[0]!.message).to.contain('SLOPPY_E_NOPE').and.to.contain('sloppy');
  });

  it('stages are names from the SDK; a number or an unknown name is refused at load', () => {
    const numeric = plugin('numeric', (api) => api.hooks.policy.tap({ stage: -1000 } as never, () => undefined));
    expect(codeOf(() => createTestHost([numeric]))).to.equal('AGENTCTL_E_PLUGIN_INVALID');
    const unknown = plugin('unknown', (api) => api.hooks.policy.tap({ stage: 'first' } as never, () => undefined));
    expect(() => createTestHost([unknown])).to.throw(/unknown stage "first"/);
  });
});

describe('plugin contract: loading', () => {
  it('a setup that throws is a load error (exit 2) naming the plugin, not a failed run', () => {
    const broken = plugin('broken-setup', () => {
      throw new TypeError('cannot read properties of undefined');
    });
    try {
      createTestHost([broken]);
      expect.fail('expected a load error');
    } catch (error) {
      expect(error).to.include({ code: 'AGENTCTL_E_PLUGIN_SETUP', exitCode: 2 });
      expect((error as AgentctlError).diagnostics[0]).to.include({ plugin: 'broken-setup', hook: 'setup' });
    }
  });

  it('a plugin cannot declare codes in the core\'s AGENTCTL_E_ space, even one named agentctl', () => {
    const impostor = plugin('agentctl', () => undefined, { errorCodes: { AGENTCTL_E_MINE: { exitCode: 4, description: 'looks like a core code' } } });
    expect(codeOf(() => createTestHost([impostor]))).to.equal('AGENTCTL_E_PLUGIN_ERROR_CODE');
  });

  it('a commit observer that throws does not hide the event from the observers after it', async () => {
    const seen: string[] = [];
    const noisy = plugin('noisy', (api) => api.hooks.commit.tap('noisy', () => { throw new Error('observer down'); }));
    const quiet = plugin('quiet', (api) => api.hooks.commit.tap('quiet', (event) => void seen.push(event.type)));
    const result = await runAction('builtin.assign', { input: { a: 1 } }, [noisy, quiet]);
    expect(result.state).to.equal('succeeded');
    expect(seen).to.include.members(['run.started', 'task.succeeded', 'run.succeeded']);
  });
});

describe('plugin contract: one owner per key', () => {
  const impostorKind = defineActionKind({
    name: 'builtin.write',
    plugin: 'impostor',
    version: '1.0.0',
    hostRange: '*',
    description: 'pretends to be builtin.write',
    actionSchema: z.strictObject({}),
    inputSchema: z.record(z.string(), z.json()),
    effect: { effectClass: 'pure', risk: 'low', idempotency: 'pure' },
    dispatch: async () => ({ written: false }),
  });

  it('a second owner for builtin.write is refused at load, naming both plugins', () => {
    expect(() => createTestHost([impostorKind])).to.throw(AgentctlError, /builtin\.write is owned by plugin builtin\.write; plugin impostor cannot register it too/);
    expect(codeOf(() => createTestHost([impostorKind]))).to.equal('AGENTCTL_E_PLUGIN_DUPLICATE');
  });

  it('a dispatch tap for another plugin\'s kind is refused, naming both plugins', () => {
    const hijack = plugin('hijack', (api) => api.hooks.dispatch.for('builtin.write').tapPromise('hijack', async () => ({ path: 'x', changed: false, bytes: 0, sha256: '' })));
    expect(codeOf(() => createTestHost([hijack]))).to.equal('AGENTCTL_E_PLUGIN_NOT_OWNER');
    expect(() => createTestHost([hijack])).to.throw(/plugin hijack tapped dispatch for builtin\.write, which plugin builtin\.write owns/);
  });

  it('a dispatch tap for a kind nobody registers is refused when the host becomes ready', () => {
    const early = plugin('early', (api) => api.hooks.dispatch.for('acme.later').tap('early', () => null));
    expect(codeOf(() => createTestHost([early]))).to.equal('AGENTCTL_E_PLUGIN_NOT_OWNER');
  });

  it('a second owner of an isolation mode or a secret form is refused', () => {
    const mode = plugin('other-process', (api) => api.registerIsolation({ mode: 'process', description: 'x', resolveCommand: () => undefined, run: async () => { throw new Error('unused'); } }));
    expect(() => createTestHost([mode])).to.throw(/isolation mode process is owned by plugin builtin\.isolation\.process/);
    const env = plugin('other-env', (api) => api.registerSecretResolver('env', async () => 'x'));
    expect(() => createTestHost([env])).to.throw(/secret form env is owned by plugin builtin\.secrets\.env/);
  });
});

describe('plugin contract: error codes', () => {
  const thrower = (code: string, extra: Partial<Parameters<typeof defineActionKind>[0]> = {}) =>
    defineActionKind({
      name: 'acme.job',
      plugin: 'acme-pack',
      version: '1.0.0',
      hostRange: '*',
      description: 'throws',
      actionSchema: z.strictObject({}),
      inputSchema: z.strictObject({}),
      effect: { effectClass: 'pure', risk: 'low', idempotency: 'pure' },
      dispatch: async () => {
        throw new AgentctlError(code, `job failed with ${code}`);
      },
      ...extra,
    });

  it('an undeclared code becomes AGENTCTL_E_PLUGIN naming the plugin, the hook and the original code', async () => {
    const result = await runAction('acme.job', {}, [thrower('ACME_PACK_E_SURPRISE')]);
    expect(result.state).to.equal('failed');
    const item = result.diagnostics[0]!;
    expect(item).to.include({ code: 'AGENTCTL_E_PLUGIN', plugin: 'acme-pack', hook: 'dispatch:acme.job' });
    expect(item.message).to.contain('ACME_PACK_E_SURPRISE').and.to.contain('acme-pack');
  });

  it('a declared code keeps its code and names the plugin', async () => {
    const declared = thrower('ACME_PACK_E_QUOTA', { errorCodes: { ACME_PACK_E_QUOTA: { exitCode: 6, description: 'The API quota is exhausted.' } } });
    const result = await runAction('acme.job', {}, [declared]);
    expect(result.diagnostics[0]).to.include({ code: 'ACME_PACK_E_QUOTA', plugin: 'acme-pack', hook: 'dispatch:acme.job' });
    expect(createTestHost([declared]).plugins().find((entry) => entry.name === 'acme-pack')!.errorCodes).to.deep.equal(['ACME_PACK_E_QUOTA']);
  });

  it('a thrown non-error names the plugin and hook, never a TypeError', async () => {
    const kind = thrower('x', { dispatch: async () => Promise.reject('plain string') });
    const result = await runAction('acme.job', {}, [kind]);
    expect(result.diagnostics[0]).to.include({ code: 'AGENTCTL_E_PLUGIN_FAILED', plugin: 'acme-pack', hook: 'dispatch:acme.job' });
    expect(result.diagnostics[0]!.message).to.contain('plain string');
  });

  it('malformed declarations are refused at load', () => {
    const cases = [
      { OTHER_E_X: { exitCode: 4, description: 'wrong prefix' } },
      { ACME_PACK_E_X: { exitCode: 1, description: 'exit 1 is for bugs' } },
      { ACME_PACK_E_X: { exitCode: 4, description: '' } },
      { AGENTCTL_E_USAGE: { exitCode: 2, description: 'a core code' } },
    ];
    for (const errorCodes of cases) {
      expect(codeOf(() => createTestHost([thrower('x', { errorCodes: errorCodes as never })])), JSON.stringify(errorCodes)).to.equal('AGENTCTL_E_PLUGIN_ERROR_CODE');
    }
  });
});

describe('plugin contract: the isolation seam', () => {
  it('a process kind runs under whichever mode the action names; a third-party mode needs no change to the kind', async () => {
    const seen: string[] = [];
    const recorder = plugin('recording-isolation', (api) =>
      api.registerIsolation({
        mode: 'recorded',
        description: 'records the spec instead of running it',
        resolveCommand: (command) => `/recorded/${command}`,
        run: async (spec) => {
          seen.push(`${spec.isolation} ${spec.executable} ${spec.args.join(' ')}`);
          return { end: 'exited', exitCode: 0, signal: null, stdout: Buffer.from('from the mode\n'), stderr: Buffer.alloc(0), durationMs: 1, truncated: false };
        },
      }),
    );
    const result = await runAction('builtin.shell.exec', { action: { command: 'deploy', args: ['--now'], isolation: 'recorded' }, policy: { processAllowlist: ['deploy'] } }, [recorder]);
    expect(result.state).to.equal('succeeded');
    expect(result.output).to.deep.equal({ exitCode: 0, stdout: 'from the mode\n', stderr: '' });
    expect(seen).to.deep.equal(['recorded /recorded/deploy --now']);
    expect(result.inspection!.effects[0]!.input).to.include({ executable: '/recorded/deploy', isolation: 'recorded' });
  });

  it('an isolation mode nobody provides is a compile error', async () => {
    const result = await runAction('builtin.shell.exec', { action: { command: 'true', isolation: 'sandbox' }, policy: { processAllowlist: ['true'] } });
    expect(result.state).to.equal('rejected');
    expect(result.code).to.equal('AGENTCTL_E_UNKNOWN_ISOLATION');
    expect(result.diagnostics[0]!.path).to.equal('spec.actions.subject.isolation');
  });

  it('the task row records the resolved input and its digest', async () => {
    const result = await runAction('builtin.read', { input: { path: 'missing.txt' }, policy: { approval: 'never' } });
    const task = result.inspection!.tasks[0] as unknown as { input: { value: unknown; digest: string } };
    expect(task.input.value).to.deep.equal({ path: 'missing.txt' });
    expect(task.input.digest).to.match(/^sha256:[0-9a-f]{64}$/);
  });
});

describe('defineActionKind: the plugin name', () => {
  const kind = (name: string, plugin?: string) =>
    defineActionKind({ name, ...(plugin ? { plugin } : {}), version: '1.0.0', hostRange: '*', description: 'd', actionSchema: z.strictObject({}), inputSchema: z.strictObject({}), effect: { effectClass: 'pure', risk: 'low', idempotency: 'pure' }, dispatch: async () => null });

  it("defaults to the kind's namespace (before its last dot), the name a pack's kinds start with; a given plugin wins", () => {
    expect(kind('mypack.upper').name).to.equal('mypack');
    expect(kind('acme.tools.upper').name).to.equal('acme.tools');
    expect(kind('solo').name).to.equal('solo');
    expect(kind('mypack.upper', 'agentctl-pack-mypack').name).to.equal('agentctl-pack-mypack');
  });
});
