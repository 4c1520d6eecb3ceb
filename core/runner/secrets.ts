// Secret resolution for the tasks that will execute, and redaction of every resolved value.
import { createHash } from 'node:crypto';
import type { SecretReference, TaskSecrets } from '../contracts.js';
import { AgentctlError, diagnostic, errorMessage, type Diagnostic } from '../errors.js';
import type { Host } from '../host.js';

export const REDACTED = '[REDACTED]';

/** Replaces every known secret value in text. Longer values first, so a secret containing another is fully hidden. */
export class Redactor {
  #values: string[] = [];

  add(value: string): void {
    if (value.length === 0 || this.#values.includes(value)) return;
    this.#values = [...this.#values, value].sort((a, b) => b.length - a.length);
  }

  get size(): number {
    return this.#values.length;
  }

  redact = (text: string): string => {
    if (this.#values.length === 0) return text;
    let out = text;
    for (const value of this.#values) {
      if (out.includes(value)) out = out.split(value).join(REDACTED);
      // JSON-encoded form, for values with quotes, backslashes or control characters.
      const encoded = JSON.stringify(value).slice(1, -1);
      if (encoded !== value && out.includes(encoded)) out = out.split(encoded).join(REDACTED);
    }
    return out;
  };

  /** Also hides a trailing prefix of a secret, for output that was cut at a byte limit mid-secret. */
  redactTruncated(text: string): string {
    let out = this.redact(text);
    for (const value of this.#values) {
      for (let length = Math.min(value.length - 1, out.length); length >= 4; length -= 1) {
        if (out.endsWith(value.slice(0, length))) {
          out = out.slice(0, out.length - length) + REDACTED;
          break;
        }
      }
    }
    return out;
  }
}

export function referenceKey(reference: SecretReference): string {
  return JSON.stringify(reference);
}

export function referenceForm(reference: SecretReference): string | undefined {
  const keys = Object.keys(reference);
  return keys.length === 1 ? keys[0] : undefined;
}

export const digestValue = (value: string) => `sha256:${createHash('sha256').update(value).digest('hex')}`;

/** Resolved values of one run, keyed by reference. */
export class SecretVault {
  readonly #values = new Map<string, string>();
  readonly redactor = new Redactor();

  set(reference: SecretReference, value: string): void {
    this.#values.set(referenceKey(reference), value);
    this.redactor.add(value);
  }

  forTask(): TaskSecrets {
    const lookup = (reference: SecretReference) => {
      const value = this.#values.get(referenceKey(reference));
      if (value === undefined) throw new AgentctlError('AGENTCTL_E_SECRET_MISSING', `secret ${referenceKey(reference)} was not declared by the action kind, so it was not resolved`);
      return value;
    };
    return { value: lookup, digest: (reference) => digestValue(lookup(reference)) };
  }

  /** Resolves each distinct reference once. Problems are collected so the user sees all of them. */
  async resolve(host: Host, references: readonly { reference: SecretReference; where: string }[], context: { workspaceRoot: string; environment: NodeJS.ProcessEnv; signal: AbortSignal }): Promise<Diagnostic[]> {
    const problems: Diagnostic[] = [];
    for (const { reference, where } of references) {
      if (this.#values.has(referenceKey(reference))) continue;
      const form = referenceForm(reference);
      if (!form || !host.hasSecretForm(form)) {
        problems.push(diagnostic('AGENTCTL_E_SECRET_FORM_UNKNOWN', { message: `${where}: no secret resolver handles ${referenceKey(reference)}`, path: where, help: 'use a reference such as {env: NAME}' }));
        continue;
      }
      try {
        const value = await host.hooks.secretResolver.for(form).promise(reference, context);
        if (value === undefined) throw new AgentctlError('AGENTCTL_E_SECRET_MISSING', `no resolver returned a value for ${referenceKey(reference)}`);
        this.set(reference, value);
      } catch (error) {
        const code = error instanceof AgentctlError ? error.code : 'AGENTCTL_E_SECRET_MISSING';
        problems.push(diagnostic(code, { message: `${where}: ${errorMessage(error)}`, path: where }));
      }
    }
    return problems;
  }
}
