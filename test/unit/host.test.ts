import { expect } from 'chai';
import { codeOf } from '../support/errors.js';
import { z } from 'zod';
import { AgentctlError } from '@agentctl/sdk';
import { Host } from '../../core/host.js';
import { composeHost } from '../../core/cli/composition.js';
import { defineActionKind, definePlugin, defineSpecSection } from '@agentctl/sdk';

const kind = (name: string, hostRange = '^0.1.0') =>
  defineActionKind({
    name,
    version: '1.0.0',
    hostRange,
    description: 'test kind',
    actionSchema: z.strictObject({}),
    inputSchema: z.strictObject({}),
    effect: { effectClass: 'pure', risk: 'low', idempotency: 'pure' },
    dispatch: async () => ({ ok: true }),
  });


describe('plugin host', () => {
  it('registers builtins through the SDK and lists them', () => {
    const plugins = composeHost().plugins();
    expect(plugins.map((plugin) => plugin.name)).to.include.members(['builtin.assign', 'builtin.shell.exec', 'builtin.secrets.env']);
    expect(plugins.find((plugin) => plugin.name === 'builtin.shell.exec')!.actionKinds).to.deep.equal(['builtin.shell.exec']);
  });

  it('refuses duplicate plugins and duplicate kinds', () => {
    const host = new Host();
    host.register(kind('test.one'));
    expect(codeOf(() => host.register(kind('test.one')))).to.equal('AGENTCTL_E_PLUGIN_DUPLICATE');
    const second = definePlugin({ name: 'other', version: '1.0.0', hostRange: '*', setup: (api) => api.registerActionKind(kind('test.one').kind) });
    expect(codeOf(() => host.register(second))).to.equal('AGENTCTL_E_PLUGIN_DUPLICATE');
  });

  it('a spec section has one owner, a camelCase key that is not the core\'s own, and a schema that accepts its absence', () => {
    const owner = (name: string, key: string, schema: z.ZodType = z.record(z.string(), z.string()).default({})) =>
      definePlugin({ name, version: '1.0.0', hostRange: '*', setup: (api) => api.registerSpecSection(defineSpecSection({ key, description: 'test section', schema })) });
    const host = new Host();
    host.register(owner('first', 'widgets'));
    expect(host.specSection('widgets')?.description).to.equal('test section');
    expect(host.plugins().find((plugin) => plugin.name === 'first')!.specSections).to.deep.equal(['widgets']);
    expect(codeOf(() => host.register(owner('second', 'widgets')))).to.equal('AGENTCTL_E_PLUGIN_DUPLICATE');
    expect(codeOf(() => host.register(owner('third', 'tasks')))).to.equal('AGENTCTL_E_PLUGIN_INVALID');
    expect(codeOf(() => host.register(owner('fourth', 'Bad-Key')))).to.equal('AGENTCTL_E_PLUGIN_INVALID');
    expect(codeOf(() => host.register(owner('fifth', 'gadgets', z.record(z.string(), z.string()))))).to.equal('AGENTCTL_E_PLUGIN_INVALID');
  });

  it('refuses a host range mismatch and a malformed identity', () => {
    expect(codeOf(() => new Host().register(kind('test.two', '^2.0.0')))).to.equal('AGENTCTL_E_PLUGIN_HOST_RANGE');
    expect(codeOf(() => new Host().register(definePlugin({ name: 'Bad Name', version: 'x', hostRange: '*', setup: () => undefined })))).to.equal('AGENTCTL_E_PLUGIN_INVALID');
  });

  it('closes registration when ready, for plugins and for taps handed out earlier', () => {
    let saved: Parameters<Parameters<typeof definePlugin>[0]['setup']>[0] | undefined;
    const host = new Host();
    host.register(definePlugin({ name: 'keeper', version: '1.0.0', hostRange: '*', setup: (api) => void (saved = api) }));
    host.ready();
    expect(codeOf(() => host.register(kind('test.late')))).to.equal('AGENTCTL_E_PLUGIN_REGISTRATION_CLOSED');
    expect(codeOf(() => saved!.hooks.commit.tapPromise('late', async () => undefined))).to.equal('AGENTCTL_E_PLUGIN_REGISTRATION_CLOSED');
  });

  it('hands plugins tap-only hooks: no call, no promise', () => {
    let hooks: Record<string, unknown> = {};
    new Host().register(definePlugin({ name: 'peek', version: '1.0.0', hostRange: '*', setup: (api) => void (hooks = api.hooks as never) }));
    for (const name of ['compile', 'policy', 'preflight', 'commit']) {
      const facade = hooks[name] as Record<string, unknown>;
      expect(Object.keys(facade), name).to.deep.equal(['tap', 'tapPromise']);
      expect(facade).not.to.have.property('promise');
      expect(facade).not.to.have.property('call');
    }
    expect(Object.isFrozen(hooks)).to.equal(true);
  });

  it('wraps a plugin error with the plugin name and hook', async () => {
    const host = new Host();
    host.register(definePlugin({ name: 'thrower', version: '1.0.0', hostRange: '*', setup: (api) => api.hooks.preflight.tapPromise('thrower', async () => { throw new Error('boom'); }) }));
    host.ready();
    try {
      await host.hooks.preflight.promise({ workflowName: 'w', tasks: [], workspaceRoot: '/', signal: new AbortController().signal, process: host.process, report: () => undefined });
      expect.fail('expected a throw');
    } catch (error) {
      expect((error as AgentctlError).code).to.equal('AGENTCTL_E_PLUGIN_FAILED');
      expect((error as Error).message).to.contain('thrower').and.to.contain('preflight').and.to.contain('boom');
    }
  });

  it('hands a commit observer\'s error to the sink and goes on with the next observer', async () => {
    const host = new Host();
    const seen: string[] = [];
    host.register(definePlugin({ name: 'thrower', version: '1.0.0', hostRange: '*', setup: (api) => api.hooks.commit.tapPromise('thrower', async () => { throw new Error('boom'); }) }));
    host.register(definePlugin({ name: 'after', version: '1.0.0', hostRange: '*', setup: (api) => api.hooks.commit.tap('after', (event) => void seen.push(event.type)) }));
    host.ready();
    const failures: unknown[] = [];
    await host.hooks.commit.promise({ type: 'x', runId: 'r', data: {} }, { fail: (error) => void failures.push(error) });
    expect(seen).to.deep.equal(['x']);
    expect(failures.map((error) => (error as AgentctlError).code)).to.deep.equal(['AGENTCTL_E_PLUGIN_FAILED']);
    expect((failures[0] as Error).message).to.contain('thrower').and.to.contain('commit').and.to.contain('boom');
  });

  it('a synchronous tap works and its errors are wrapped too', async () => {
    const host = new Host();
    const seen: string[] = [];
    host.register(definePlugin({ name: 'sync', version: '1.0.0', hostRange: '*', setup: (api) => api.hooks.commit.tap('sync', (event) => void seen.push(event.type)) }));
    host.ready();
    await host.hooks.commit.promise({ type: 'run.started', runId: 'r', data: {} }, { fail: (error) => { throw error; } });
    expect(seen).to.deep.equal(['run.started']);
  });

  it('declares every hook frozen', () => {
    const host = new Host();
    expect(Object.isFrozen(host.hooks)).to.equal(true);
    expect(Object.keys(host.hooks)).to.deep.equal(['compile', 'policy', 'preflight', 'dispatch', 'commit', 'secretResolver']);
  });
});
