// The long-term memory store registry: keyed by provider name, one owner each, and the sqlite store registered by
// the composition root beside the builtins.
import { expect } from 'chai';
import { definePlugin, type MemoryStoreProvider } from '@agentctl/sdk';
import { composeHost } from '../../core/cli/composition.js';
import { codeOf } from '../support/errors.js';

const storePlugin = (name: string, store: Partial<MemoryStoreProvider>) =>
  definePlugin({ name, version: '1.0.0', hostRange: '^0.1.0', setup: (api) => api.registerMemoryStore(store as MemoryStoreProvider) });

const unused = () => {
  throw new Error('never opened here');
};

describe('memory store registry', () => {
  it('the composed host has the sqlite store, owned by the core plugin; another plugin adds its own by name', () => {
    const host = composeHost({ plugins: [storePlugin('acme-vector', { provider: 'acme', open: unused })] });
    expect(host.memoryStores()).to.deep.equal(['acme', 'sqlite']);
    expect(host.memoryStore('sqlite')?.provider).to.equal('sqlite');
    expect(host.plugins().find((plugin) => plugin.name === 'builtin.memory.sqlite')?.memoryStores).to.deep.equal(['sqlite']);
  });

  it('refuses a second owner of a provider name, naming both plugins, and a store without a name or open', () => {
    const compose = (plugin: ReturnType<typeof storePlugin>) => () => composeHost({ plugins: [plugin] });
    expect(codeOf(compose(storePlugin('acme-sqlite', { provider: 'sqlite', open: unused })))).to.equal('AGENTCTL_E_PLUGIN_DUPLICATE');
    expect(() => compose(storePlugin('acme-sqlite', { provider: 'sqlite', open: unused }))()).to.throw(/builtin\.memory\.sqlite.*acme-sqlite/);
    expect(codeOf(compose(storePlugin('acme-bad', { provider: 'Acme Store', open: unused })))).to.equal('AGENTCTL_E_PLUGIN_INVALID');
    expect(codeOf(compose(storePlugin('acme-closed', { provider: 'acme' })))).to.equal('AGENTCTL_E_PLUGIN_INVALID');
  });
});
