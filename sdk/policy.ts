// Policy as a plugin sees it: the resolved policy (inferred from its schema), the request, and the votes a plugin may
// cast. The core's own checks always run first and no plugin can skip them; a plugin can only tighten the outcome.
import { z } from 'zod';
import type { EffectAccess, EffectProfile } from './effects.js';
import type { Diagnostic } from './errors.js';

const nameList = z.array(z.string().min(1));

/** `spec.policy.network`: how outbound HTTP (model providers, HTTP actions) may leave the machine (SPEC §10). */
export const networkPolicySchema = z
  .strictObject({
    allowedSchemes: z.array(z.enum(['http', 'https'])).min(1).default(['https', 'http']).describe('URL schemes requests may use.'),
    allowedPorts: z.array(z.number().int().min(1).max(65535)).default([]).describe('Ports a URL may name, explicitly or by its scheme\'s default; empty: any port.'),
    connectTimeoutSeconds: z.number().int().min(1).max(300).default(10).describe('Bounds DNS resolution and connection setup.'),
    maxResponseBytes: z.number().int().min(1).max(64 * 1024 * 1024).default(4 * 1024 * 1024).describe('Largest response body accepted.'),
    allowPrivate: z.boolean().default(false).describe('Allow private, loopback, link-local and other non-public addresses.'),
    allowProxy: z.boolean().default(false).describe('Honour HTTP_PROXY/HTTPS_PROXY; ignored otherwise.'),
    customCa: z
      .record(z.string(), z.json())
      .refine((value) => Object.keys(value).length === 1, 'customCa is a secret reference with exactly one key, e.g. {env: NAME} or {file: PATH}')
      .optional()
      .describe('A reviewed PEM bundle of CA certificates to trust in addition to the system roots.'),
  })
  .describe('Network policy (SPEC section 10).');

/** The `spec.policy` object of a workflow (SPEC §3). The source of truth for ResolvedPolicy. */
export const policySchema = z
  .strictObject({
    workspaceRoot: z.string().min(1).default('.').describe('Root for relative paths, relative to --workspace.'),
    writableRoots: nameList.default([]).describe('Writes are allowed only below these folders.'),
    processAllowlist: nameList.default([]).describe('Executable basenames process actions may launch.'),
    environmentAllowlist: nameList.default([]).describe('Names an action env entry may set.'),
    secretFileRoots: nameList.default([]).describe('Folders {file: ...} secret references may read from.'),
    secretProcessAllowlist: nameList.default([]).describe('Basenames {process: ...} secret references may run.'),
    networkAllowlist: nameList.default([]).describe('Hosts HTTP egress may reach: exact names or *.suffix.'),
    network: networkPolicySchema.default(networkPolicySchema.parse({})),
    providers: nameList.default([]).describe('Provider entries (spec.providers names) agents may use; empty: all declared.'),
    toolsAllow: nameList.default([]).describe('Tool identities allowed (empty: all not denied).'),
    toolsDeny: nameList.default([]).describe('Tool identities denied.'),
    approval: z.enum(['never', 'mutations', 'high_risk', 'always']).default('mutations'),
    nonInteractive: z.enum(['pause', 'deny_approval', 'fail']).default('pause'),
  })
  .describe('Policy (SPEC section 3).');

/** The run-wide policy after defaults. */
export type ResolvedPolicy = Readonly<z.output<typeof policySchema>>;

/** The read-only payload of the `policy` hook: one effect about to be recorded. */
export interface PolicyRequest {
  readonly runId: string;
  readonly taskId: string;
  readonly kind: string;
  readonly operation: string;
  readonly access: EffectAccess;
  readonly profile: EffectProfile;
  readonly policy: ResolvedPolicy;
  /** Absolute workspace root (policy.workspaceRoot resolved against --workspace). */
  readonly workspaceRoot: string;
  /**
   * agentctl's own state as absolute, canonical paths: the database, its `-wal`, `-shm` and `-journal` files, and
   * the artifact store folder beside it. The core denies every read, write and process `cwd` at or below one of them.
   */
  readonly statePaths: readonly string[];
}

/** What a plugin's policy tap may return: a denial, a demand for approval, or nothing (no opinion). */
export type PolicyVote =
  | { readonly decision: 'deny'; readonly diagnostic: Diagnostic }
  | { readonly decision: 'needs_approval'; readonly reason: string };

/** The final decision about one effect: the most restrictive of the core's verdict and every plugin vote. */
export type PolicyVerdict = { readonly decision: 'allow'; readonly reason?: string } | PolicyVote;

/**
 * Named stages a plugin's policy tap may use, in the order they run. All of them run after the core's own checks.
 * A plugin names a stage (`{ stage: 'security' }`), never a number.
 */
export const POLICY_STAGES = Object.freeze({ security: -100, default: 0, review: 100 });

/** A stage name from POLICY_STAGES. */
export type PolicyStage = keyof typeof POLICY_STAGES;
