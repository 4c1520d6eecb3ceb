// The registry of task bodies: one body per kind, for a kind its plugin owns or the body's own, refused otherwise
// with the host's existing codes; registration closes with the host.
import { expect } from 'chai';
import { z } from 'zod';
import { defineActionKind, definePlugin, type PluginApi, type TaskBody } from '@agentctl/sdk';
import { composeHost } from '../../core/cli/composition.js';
import { Host } from '../../core/host.js';
import { codeOf } from '../support/errors.js';

const PROFILE = { effectClass: 'pure', risk: 'low', idempotency: 'pure' } as const;

const kindPlugin = (name: string, setup?: (api: PluginApi) => void) =>
  defineActionKind({ name, version: '1.0.0', hostRange: '*', description: 'test kind', actionSchema: z.strictObject({}), inputSchema: z.strictObject({}), effect: PROFILE, dispatch: async () => ({ ok: true }), ...(setup ? { setup } : {}) });

const body = (kind: string, extra: Partial<TaskBody> = {}): TaskBody => ({ kind, description: 'test body', run: async () => ({ ran: kind }), ...extra });
const bodyPlugin = (name: string, registered: TaskBody) => definePlugin({ name, version: '1.0.0', hostRange: '*', setup: (api) => api.registerTaskBody(registered) });
const ownKind = (name: string) => kindPlugin(name).kind;

describe('task body registry', () => {
  it('a plugin registers a body for its own kind; the host finds it by kind, and a kind without one has none', () => {
    const registered = body('test.ask');
    const host = new Host();
    host.register(kindPlugin('test.ask', (api) => api.registerTaskBody(registered)));
    host.register(kindPlugin('plain.kind'));
    host.ready();
    expect(host.taskBody('test.ask')?.description).to.equal('test body');
    expect(host.taskBody('plain.kind')).to.equal(undefined);
    expect(host.plugins().find((plugin) => plugin.name === 'test')!.taskBodies).to.deep.equal(['test.ask']);
  });

  it('a second body for a kind is refused: AGENTCTL_E_PLUGIN_DUPLICATE', () => {
    const host = new Host();
    host.register(kindPlugin('test.ask', (api) => api.registerTaskBody(body('test.ask'))));
    expect(codeOf(() => host.register(bodyPlugin('intruder', body('test.ask'))))).to.equal('AGENTCTL_E_PLUGIN_DUPLICATE');
  });

  it('a body for another plugin\'s kind, or for a kind nobody registers, is refused: AGENTCTL_E_PLUGIN_NOT_OWNER', () => {
    const host = new Host();
    host.register(kindPlugin('test.ask'));
    expect(codeOf(() => host.register(bodyPlugin('intruder', body('test.ask'))))).to.equal('AGENTCTL_E_PLUGIN_NOT_OWNER');
    const orphan = new Host();
    orphan.register(bodyPlugin('orphan', body('nobody.kind')));
    expect(codeOf(() => orphan.ready())).to.equal('AGENTCTL_E_PLUGIN_NOT_OWNER');
  });

  it('a body\'s own kind is found as an action kind but cannot be declared, nor registered again by another plugin', () => {
    const host = new Host();
    host.register(bodyPlugin('owner', body('test.own', { action: ownKind('test.own') })));
    expect(codeOf(() => host.register(kindPlugin('test.own')))).to.equal('AGENTCTL_E_PLUGIN_DUPLICATE');
    host.ready();
    expect(host.actionKind('test.own')?.name).to.equal('test.own');
    expect(host.declaredActionKind('test.own')).to.equal(undefined);
    expect(host.actionKinds().map((kind) => kind.name)).to.not.include('test.own');
  });

  it('the composed host has the agent and flow bodies, registered like any plugin; no plugin can take the agent kind', () => {
    const host = composeHost();
    expect(host.taskBody('agent')?.usesProvider).to.equal(true);
    expect(host.taskBody('flow')?.pure).to.equal(true);
    expect(host.plugins().filter((plugin) => plugin.taskBodies.length > 0).map((plugin) => [plugin.name, plugin.source, plugin.taskBodies])).to.deep.equal([
      ['builtin.agent', 'builtin', ['agent']],
      ['builtin.flow', 'builtin', ['flow']],
    ]);
    expect(codeOf(() => composeHost({ plugins: [kindPlugin('agent')] }))).to.equal('AGENTCTL_E_PLUGIN_DUPLICATE');
  });

  it('a body without a kind or run, or whose own action kind has another name, is refused: AGENTCTL_E_PLUGIN_INVALID', () => {
    expect(codeOf(() => new Host().register(bodyPlugin('nameless', { description: 'no kind' } as unknown as TaskBody)))).to.equal('AGENTCTL_E_PLUGIN_INVALID');
    expect(codeOf(() => new Host().register(bodyPlugin('mismatch', body('test.own', { action: ownKind('test.other') }))))).to.equal('AGENTCTL_E_PLUGIN_INVALID');
  });

  it('registration closes when the host is ready', () => {
    let saved: PluginApi | undefined;
    const host = new Host();
    host.register(definePlugin({ name: 'keeper', version: '1.0.0', hostRange: '*', setup: (api) => void (saved = api) }));
    host.ready();
    expect(codeOf(() => saved!.registerTaskBody(body('late.kind')))).to.equal('AGENTCTL_E_PLUGIN_REGISTRATION_CLOSED');
  });
});
