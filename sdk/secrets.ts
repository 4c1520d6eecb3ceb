// Secret references and the resolvers that turn them into values.
import { z } from 'zod';
import type { DispatchProcessService } from './isolation.js';
import type { JsonValue } from './json.js';
import type { ResolvedPolicy } from './policy.js';

/** A reference to a secret value: exactly one key naming the form, e.g. `{ env: 'TOKEN' }`. */
export type SecretReference = Readonly<Record<string, JsonValue>>;

/** The schema of a secret reference, for action kinds whose fields accept one. */
export const secretReferenceSchema = z
  .record(z.string(), z.json())
  .refine((value) => Object.keys(value).length === 1, 'a secret reference has exactly one key, e.g. {env: NAME}');

/**
 * How the command line names a reference's form in `AuthStatus` and `ProviderCapabilities` (the reference
 * implementation's words): `environment` for `{env: NAME}`, the form's own key otherwise.
 */
export function secretKindLabel(form: string): string {
  return form === 'env' ? 'environment' : form;
}

/** What a reference points at, as written: the variable name, the file path, or the helper's command. */
export function secretReferenceTarget(reference: SecretReference): string {
  const value = Object.values(reference)[0];
  if (typeof value === 'string') return value;
  const command = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, JsonValue>).command : undefined;
  return typeof command === 'string' ? command : JSON.stringify(value);
}

/** Context handed to a secret resolver. */
export interface SecretResolverContext {
  readonly workspaceRoot: string;
  readonly environment: NodeJS.ProcessEnv;
  readonly signal: AbortSignal;
  /**
   * The run's policy, for resolvers it bounds: `secretFileRoots` for `{file: ...}`, `secretProcessAllowlist` for
   * `{process: ...}` (relative roots are relative to the workspace root).
   */
  readonly policy: ResolvedPolicy;
  /**
   * Set by `agentctl auth check`: only check that the value is available, without reading a file's content or
   * running a helper, and return an empty string; refuse exactly as resolution would for what can be checked.
   */
  readonly checkOnly?: boolean;
  /**
   * The host's process service, bound to `signal`: a resolver that runs a helper runs it here (under an isolation mode
   * such as `process`, with its limits, timeout, empty environment and whole-tree kill), never with a spawn of its own.
   */
  readonly process: DispatchProcessService;
}

/** Resolves one reference form (the key of the reference object) to a value, or throws an AgentctlError. */
export type SecretResolver = (reference: SecretReference, context: SecretResolverContext) => Promise<string>;

/** Secrets resolved for the task being dispatched. */
export interface TaskSecrets {
  /** The value of a reference the action declared through `secretReferences`. */
  value(reference: SecretReference): string;
  /**
   * A keyed digest of the value, safe to record: `hmac-sha256:<hex>`, HMAC-SHA-256 under a random key of the run's
   * database, so equal values have equal digests within one database and a short value cannot be brute-forced
   * from the digest alone.
   */
  digest(reference: SecretReference): string;
  /**
   * Resolves a declared reference again and returns its current value (e.g. once, after a server refused the
   * credential with 401, in case it was rotated). The new value is redacted from then on, like the first.
   */
  refresh(reference: SecretReference): Promise<string>;
}
