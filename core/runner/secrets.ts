// Secret resolution for the tasks that will execute, and redaction of every resolved value.
import { createHash } from 'node:crypto';
import { AgentctlError, diagnostic, errorMessage, isAgentctlError, type Diagnostic, type SecretReference, type TaskSecrets } from '../../sdk/index.js';
import type { Host } from '../host.js';

export const REDACTED = '[REDACTED]';

/**
 * Replaces every known secret value in text. All occurrences of all values (raw and JSON-escaped) are found in the
 * original text first and overlapping ones merged, so two overlapping secrets cannot leave a piece of either behind.
 */
export class Redactor {
  #patterns: string[] = [];

  add(value: string): void {
    if (value.length === 0 || this.#patterns.includes(value)) return;
    const escaped = JSON.stringify(value).slice(1, -1);
    const twice = JSON.stringify(escaped).slice(1, -1);
    this.#patterns = [...new Set([...this.#patterns, value, escaped, twice])];
  }

  get size(): number {
    return this.#patterns.length;
  }

  redact = (text: string): string => {
    if (this.#patterns.length === 0) return text;
    const spans: [number, number][] = [];
    for (const pattern of this.#patterns) {
      for (let at = text.indexOf(pattern); at >= 0; at = text.indexOf(pattern, at + 1)) spans.push([at, at + pattern.length]);
    }
    return spans.length === 0 ? text : replaceSpans(text, spans);
  };

  /** Redacts every string (and key) inside a JSON value; the result is always valid JSON. */
  redactValue = <T>(value: T): T => {
    if (this.#patterns.length === 0) return value;
    const visit = (item: unknown): unknown => {
      if (typeof item === 'string') return this.redact(item);
      if (Array.isArray(item)) return item.map(visit);
      if (item !== null && typeof item === 'object') return Object.fromEntries(Object.entries(item).map(([key, inner]) => [this.redact(key), visit(inner)]));
      return item;
    };
    return visit(value) as T;
  };

  /** Also hides a trailing prefix (4 characters or more) of a secret, for output cut at a byte limit mid-secret. */
  redactTruncated(text: string): string {
    let out = this.redact(text);
    for (const value of this.#patterns) {
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

function replaceSpans(text: string, spans: [number, number][]): string {
  spans.sort((a, b) => a[0] - b[0]);
  let out = '';
  let cursor = 0;
  let [start, end] = spans[0]!;
  for (const [from, to] of spans.slice(1)) {
    if (from <= end) {
      end = Math.max(end, to);
      continue;
    }
    out += text.slice(cursor, start) + REDACTED;
    cursor = end;
    [start, end] = [from, to];
  }
  return out + text.slice(cursor, start) + REDACTED + text.slice(end);
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
        const code = isAgentctlError(error) ? error.code : 'AGENTCTL_E_SECRET_MISSING';
        problems.push(diagnostic(code, { message: `${where}: ${errorMessage(error)}`, path: where }));
      }
    }
    return problems;
  }
}
