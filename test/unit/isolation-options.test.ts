// When registration closes, each process kind's action schema takes the options block of every registered isolation
// mode; a kind that is not a process kind is left as it is, and a key two owners would share is refused.
import { expect } from 'chai';
import { z } from 'zod';
import { definePlugin, type IsolationMode } from '@agentctl/sdk';
import { composeHost } from '../../core/cli/composition.js';
import { codeOf } from '../support/errors.js';

const modePlugin = (key: string) =>
  definePlugin({
    name: `mode-${key}`,
    version: '1.0.0',
    hostRange: '^0.1.0',
    setup(api) {
      const mode: IsolationMode = { mode: `mode-${key}`, description: 'test mode', options: { key, schema: z.strictObject({ label: z.string() }) }, resolveCommand: (command) => command, run: () => Promise.reject(new Error('not run')) };
      api.registerIsolation(mode);
    },
  });

const shapeOf = (kind: string, host = composeHost()) => Object.keys((host.actionKind(kind)!.actionSchema as z.ZodObject).shape);

describe('isolation options in action schemas', () => {
  it('adds each mode\'s block to the process kinds only', () => {
    const host = composeHost({ plugins: [modePlugin('tagged')] });
    expect(shapeOf('builtin.shell.exec', host)).to.include.members(['container', 'tagged']);
    expect(shapeOf('extension.process', host)).to.include.members(['container', 'tagged']);
    expect(shapeOf('builtin.write', host)).to.not.include.members(['container']);
    expect(shapeOf('builtin.write', host)).to.not.include.members(['tagged']);
  });

  it('refuses a key another mode takes, or a field the kind already has (AGENTCTL_E_PLUGIN_DUPLICATE)', () => {
    expect(codeOf(() => composeHost({ plugins: [modePlugin('container')] }))).to.equal('AGENTCTL_E_PLUGIN_DUPLICATE');
    expect(codeOf(() => composeHost({ plugins: [modePlugin('command')] }))).to.equal('AGENTCTL_E_PLUGIN_DUPLICATE');
  });
});
