// Error codes whose paths a working CLI setup never meets, each reached through a real host: an isolation mode that
// cannot clean up, a provider tester that cannot tell which kind to test, a host without a network client, and a
// task whose own code ignores its deadline.
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { z } from 'zod';
import { networkProblems as agentNetworkProblems } from '../../core/runner/network-preflight.js';
import { compileText } from '../../core/compiler/compile.js';
import { SecretVault } from '../../core/runner/secrets.js';
import { bareHost } from '../../core/testing/bare-host.js';
import { ProviderTester, runAction } from '../../core/testing/index.js';
import { defineActionKind, defineIsolation, definePlugin, type DispatchContext, type EffectProfile, type JsonValue, type ModelProvider } from '@agentctl/sdk';
import { codeOf } from '../support/errors.js';

const identity = { version: '1.0.0', hostRange: '*' } as const;

/** An action kind of pack `acme` with empty action and input shapes. */
const acmeKind = (name: string, description: string, effect: EffectProfile, dispatch: (context: DispatchContext) => Promise<JsonValue>, extra: { usesNetwork?: boolean } = {}) =>
  defineActionKind({ ...identity, plugin: 'acme', name, description, effect, actionSchema: z.strictObject({}), inputSchema: z.strictObject({}), dispatch, ...extra });

describe('rare error paths through a real host', () => {
  it('a process whose isolation could not be cleaned up is uncertain with AGENTCTL_E_PROCESS_CLEANUP', async () => {
    const leaky = defineIsolation({
      ...identity,
      plugin: 'acme-leaky',
      mode: 'acme-leaky',
      description: 'Runs nothing and cannot remove what it made.',
      resolveCommand: (command) => `/leaky/${command}`,
      run: async () => ({ end: 'exited', exitCode: 0, signal: null, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), durationMs: 1, truncated: false, cleanupError: 'the sandbox could not be removed' }),
    });
    const result = await runAction('builtin.shell.exec', { action: { command: 'deploy', isolation: 'acme-leaky' }, policy: { processAllowlist: ['deploy'] } }, [leaky]);
    expect(result.state).to.equal('failed');
    expect(result.code).to.equal('AGENTCTL_E_PROCESS_CLEANUP');
    expect(result.diagnostics[0]!.message).to.contain('the sandbox could not be removed');
    expect(result.inspection!.effects.map((effect) => effect.state)).to.deep.equal(['uncertain']);
  });

  it('a ProviderTester for a plugin with two provider kinds and no options.kind is AGENTCTL_E_PROVIDER_UNKNOWN', () => {
    const provider = (kind: string): ModelProvider => ({ kind, description: kind, capabilities: { tools: false, structuredOutput: false, reasoning: false }, call: async () => ({ content: [], finishReason: 'complete', usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } }) });
    const twin = definePlugin({ name: 'acme-twin', ...identity, setup: (api) => { api.registerProvider(provider('acme.one')); api.registerProvider(provider('acme.two')); } });
    expect(codeOf(() => new ProviderTester(twin))).to.equal('AGENTCTL_E_PROVIDER_UNKNOWN');
    expect(() => new ProviderTester(twin)).to.throw(/registers provider kinds \[acme\.one, acme\.two\]; name the one to test with options\.kind/);
    expect(new ProviderTester(twin, { kind: 'acme.two' }).provider.kind).to.equal('acme.two');
  });

  it('a kind that makes HTTP requests, in a host with no network client, is AGENTCTL_E_NETWORK_UNAVAILABLE at preflight', async () => {
    const fetcher = acmeKind('acme.fetch', 'Fetches.', { effectClass: 'network', risk: 'low', idempotency: 'idempotent' }, async () => ({}), { usesNetwork: true });
    const host = bareHost([fetcher]);
    const text = 'apiVersion: agentctl.dev/v1\nkind: Workflow\nmetadata: {name: t}\nspec:\n  actions: {get: {kind: acme.fetch}}\n  tasks: [{id: get, uses: "action:get"}]\n';
    const { plan } = await compileText(host, 'wf.yaml', text);
    const problems = await agentNetworkProblems(host, plan, new SecretVault(() => Buffer.alloc(32)), plan.tasks, { workspaceRoot: '/', environment: {}, signal: new AbortController().signal, policy: plan.policy });
    expect(problems.map((problem) => problem.code)).to.deep.equal(['AGENTCTL_E_NETWORK_UNAVAILABLE']);
    expect(problems[0]!.message).to.contain('task get (acme.fetch) makes HTTP requests');
  });

  it('a task whose kind ignores its signal and fails after the deadline is AGENTCTL_E_TASK_TIMEOUT', async () => {
    const stubborn = acmeKind('acme.stubborn', 'Waits past its deadline, then throws a plain error.', { effectClass: 'pure', risk: 'low', idempotency: 'pure' }, async () => {
      await sleep(1_500);
      throw new Error('gave up');
    });
    const result = await runAction('acme.stubborn', { task: { timeoutSeconds: 1 } }, [stubborn]);
    expect(result.state).to.equal('failed');
    expect(result.code).to.equal('AGENTCTL_E_TASK_TIMEOUT');
    expect(result.diagnostics[0]!.message).to.contain('exceeded its timeout of 1s').and.to.contain('gave up');
  });

  it('an effect asked for after the task deadline passed is not started: AGENTCTL_E_TASK_TIMEOUT, nothing recorded', async () => {
    const late = acmeKind('acme.late', 'Waits past its deadline, then asks for an effect.', { effectClass: 'external_mutate', risk: 'low', idempotency: 'unknown' }, async (context) => {
      await sleep(1_500);
      return context.effect({ operation: 'acme.change', input: {}, access: { tool: 'acme.change' } }, async () => ({ changed: true }));
    });
    const result = await runAction('acme.late', { task: { timeoutSeconds: 1 } }, [late]);
    expect(result.state).to.equal('failed');
    expect(result.code).to.equal('AGENTCTL_E_TASK_TIMEOUT');
    expect(result.diagnostics[0]!.message).to.contain('acme.change was not started: the task deadline passed');
    expect(result.inspection!.effects).to.deep.equal([]);
  });
});
