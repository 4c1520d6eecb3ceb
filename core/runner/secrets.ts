// Secret resolution for the tasks that will execute, and redaction of every resolved value.
import { createHmac } from 'node:crypto';
import { AgentctlError, diagnostic, errorMessage, isAgentctlError, type Diagnostic, type NetworkClient, type SecretReference, type TaskSecrets } from '@agentctl/sdk';
import type { SecretLookup } from '../hooks.js';
import type { Host } from '../host.js';
import { MIN_SECRET_LENGTH, Redactor, tooShortToRedact } from './redactor.js';

export { MIN_SECRET_LENGTH, REDACTED, Redactor, tooShortToRedact } from './redactor.js';

export function referenceKey(reference: SecretReference): string {
  return JSON.stringify(reference);
}

export function referenceForm(reference: SecretReference): string | undefined {
  const keys = Object.keys(reference);
  return keys.length === 1 ? keys[0] : undefined;
}

/**
 * A keyed digest of a secret value, safe to record: HMAC-SHA-256 under the database's own random key, so a short
 * value (a PIN) cannot be recovered from a recorded digest by trying every candidate without that key.
 */
export const keyedDigest = (key: Buffer, value: string) => `hmac-sha256:${createHmac('sha256', key).update(value, 'utf8').digest('hex')}`;

/** Resolved values of one run, keyed by reference. */
export class SecretVault {
  readonly #values = new Map<string, string>();
  readonly redactor = new Redactor();
  /**
   * The run's HTTP client under the network policy, built at preflight when an agent task will execute. It lives
   * with the vault because it holds secret material: the resolved customCa bundle, kept only in memory.
   */
  network?: NetworkClient;
  readonly #digestKey: () => Buffer;
  #key: Buffer | undefined;

  /** `digestKey` returns the database's digest key; it is asked for (and created) only when a digest is needed. */
  constructor(digestKey: () => Buffer) {
    this.#digestKey = digestKey;
  }

  set(reference: SecretReference, value: string): void {
    this.#values.set(referenceKey(reference), value);
    this.redactor.add(value);
  }

  /** A keyed digest of any recorded text that must not be recoverable from the ledger. */
  digest(value: string): string {
    this.#key ??= this.#digestKey();
    return keyedDigest(this.#key, value);
  }

  forTask(): TaskSecrets {
    const lookup = (reference: SecretReference) => {
      const value = this.#values.get(referenceKey(reference));
      if (value === undefined) throw new AgentctlError('AGENTCTL_E_SECRET_MISSING', `secret ${referenceKey(reference)} was not declared by the action kind, so it was not resolved`);
      return value;
    };
    const refresh = async (reference: SecretReference) => {
      lookup(reference);
      const again = this.#again;
      if (!again) return lookup(reference);
      const value = await again(reference);
      if (value === undefined || tooShortToRedact(value)) throw new AgentctlError('AGENTCTL_E_SECRET_MISSING', `secret ${referenceKey(reference)} could not be resolved again`);
      this.set(reference, value);
      return value;
    };
    return { value: lookup, digest: (reference) => this.digest(lookup(reference)), refresh };
  }

  /** Resolves a reference again with the resolver and context of the first resolution (TaskSecrets.refresh). */
  #again: ((reference: SecretReference) => Promise<string | undefined>) | undefined;

  /** Resolves each distinct reference once. Problems are collected so the user sees all of them. */
  async resolve(host: Host, references: readonly { reference: SecretReference; where: string }[], context: SecretLookup): Promise<Diagnostic[]> {
    const problems: Diagnostic[] = [];
    const refused = new Set<string>();
    this.#again ??= (reference) => host.hooks.secretResolver.for(referenceForm(reference)!).promise(reference, context);
    for (const { reference, where } of references) {
      if (this.#values.has(referenceKey(reference)) || refused.has(referenceKey(reference))) continue;
      const form = referenceForm(reference);
      if (!form || !host.hasSecretForm(form)) {
        problems.push(diagnostic('AGENTCTL_E_SECRET_FORM_UNKNOWN', { message: `${where}: no secret resolver handles ${referenceKey(reference)}`, path: where, help: 'use a reference such as {env: NAME}' }));
        continue;
      }
      try {
        const value = await host.hooks.secretResolver.for(form).promise(reference, context);
        if (value === undefined) throw new AgentctlError('AGENTCTL_E_SECRET_MISSING', `no resolver returned a value for ${referenceKey(reference)}`);
        if (tooShortToRedact(value)) {
          // Neither the value nor its length is named: the diagnostic must not help anyone guess it.
          refused.add(referenceKey(reference));
          problems.push(
            diagnostic('AGENTCTL_E_SECRET_TOO_SHORT', {
              message: `${where}: the value of ${referenceKey(reference)} is shorter than ${MIN_SECRET_LENGTH} characters (surrounding whitespace not counted); a value that short cannot be redacted safely`,
              path: where,
              help: `use a secret of at least ${MIN_SECRET_LENGTH} characters; a shorter one would be replaced inside unrelated text and still be recognisable`,
            }),
          );
          continue;
        }
        this.set(reference, value);
      } catch (error) {
        const code = isAgentctlError(error) ? error.code : 'AGENTCTL_E_SECRET_MISSING';
        problems.push(diagnostic(code, { message: `${where}: ${errorMessage(error)}`, path: where }));
      }
    }
    return problems;
  }
}
