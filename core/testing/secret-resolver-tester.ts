// The secret-resolver tester: a plugin registered alone in a real host, its resolver called through the host's keyed
// hook exactly as preflight calls it, with a context whose fields a test chooses.
import { policySchema, type PluginDefinition, type SecretReference, type SecretResolverContext } from '@agentctl/sdk';
import { composeHost } from '../cli/composition.js';
import type { Host } from '../host.js';
import { dispatchProcessService } from '../process-service.js';
import { bareHost } from './bare-host.js';

/** What a test may set of a resolver's context: the policy as `spec.policy` fields (defaults applied). */
export interface SecretContextOverrides extends Partial<Omit<SecretResolverContext, 'policy'>> {
  readonly policy?: Record<string, unknown>;
}

/**
 * Resolves references of the forms a plugin registers. The default context has an empty environment, the default
 * policy, no `checkOnly`, and the current folder as the workspace root.
 */
export class SecretResolverTester {
  readonly #host: ReturnType<typeof bareHost>;
  /** The bare host has no isolation mode: a resolver's helper runs under the builtin ones, as in agentctl. */
  #modes: Host | undefined;

  constructor(plugin: PluginDefinition) {
    this.#host = bareHost([plugin]);
  }

  /** Resolves `reference` by its form (its one key); rejects with the resolver's error, attributed to the plugin. */
  async resolve(reference: SecretReference, overrides: SecretContextOverrides = {}): Promise<string> {
    const [form] = Object.keys(reference);
    if (form === undefined || !this.#host.hasSecretForm(form)) throw new Error(`the plugin under test registers no secret form ${String(form)}`);
    const { policy, ...rest } = overrides;
    const signal = rest.signal ?? new AbortController().signal;
    const context: SecretResolverContext = {
      workspaceRoot: process.cwd(),
      environment: {},
      signal,
      process: dispatchProcessService((this.#modes ??= composeHost()), signal),
      ...rest,
      policy: policySchema.parse(policy ?? {}),
    };
    const value = await this.#host.hooks.secretResolver.for(form).promise(reference, context);
    if (value === undefined) throw new Error(`no resolver answered for secret form ${form}`);
    return value;
  }
}
