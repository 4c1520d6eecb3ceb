// The reference implementation's declarative pack format: the manifest (`agentctl.dev/pack/v1alpha1`), a workflow's
// `spec.packs` entries and `spec.packTrust`, and the lock (`agentctl.dev/pack-lock/v1`). Their items (actions,
// agents, tools, sub-workflows) are the workflow format's own, so the manifest reuses those schemas.
import { z } from 'zod';
import { agentSchema, toolSchema } from '../agent-schema.js';
import { actionBaseSchema, NAME_PATTERN, subworkflowSchema } from '../envelope.js';
import { exactVersion, integrity, packName, packSourceSchema, requirement, signatureSchema } from './reference.js';

export { nodeRange, packReferenceSchema, packSourceSchema, packTrustSchema, satisfies, type PackReference, type PackSource, type PackTrust } from './reference.js';

export { REFERENCE_FORMAT_VERSION } from '../../version.js';

export const PACK_API_VERSION = 'agentctl.dev/pack/v1alpha1';
export const LOCK_API_VERSION = 'agentctl.dev/pack-lock/v1';
export const LOCK_FILE = 'agentctl.pack.lock';
/** Manifests, like workflows, are at most 1 MiB. */
export const MAX_MANIFEST_BYTES = 1024 * 1024;

const itemName = z.string().regex(NAME_PATTERN, 'an item name starts with a letter and holds letters, digits, "_" and "-"');

export const packManifestSchema = z.strictObject({
  apiVersion: z.literal(PACK_API_VERSION),
  name: packName,
  version: exactVersion,
  agentctl: requirement.describe('The versions of the reference format the pack works with.'),
  files: z.record(z.string(), z.string().regex(/^sha256:[0-9a-f]{64}$/)).default({}),
  dependencies: z.record(packName, z.strictObject({ version: requirement, source: packSourceSchema, signature: signatureSchema.optional() })).default({}),
  actions: z.record(itemName, actionBaseSchema).default({}),
  agents: z.record(itemName, agentSchema).default({}),
  tools: z.record(itemName, toolSchema).default({}),
  workflows: z.record(itemName, subworkflowSchema).default({}),
  capabilities: z.array(z.string()).default([]),
  providers: z.array(z.string()).default([]),
  policyDefaults: z.record(z.string(), z.json()).optional().describe('Inspectable only: never merged into, and never weakening, the workflow policy.'),
});
export type PackManifest = z.output<typeof packManifestSchema>;

export const lockEntrySchema = z.strictObject({
  name: packName,
  version: exactVersion,
  source: packSourceSchema,
  integrity,
  compatibility: requirement,
  dependencies: z.record(packName, exactVersion).default({}),
  signature: signatureSchema.optional(),
  trust: z.strictObject({ status: z.enum(['unsigned', 'sigstore']), identity: z.string().optional(), issuer: z.string().optional(), bundleIntegrity: z.string().optional() }),
});
export type LockEntry = z.output<typeof lockEntrySchema>;

/** A code pack in the lock: an extension of the reference's format (which has declarative packs only). */
export const codePackEntrySchema = z.strictObject({
  name: z.string().min(1),
  version: z.string().min(1),
  hostRange: z.string().min(1),
  source: z.union([z.strictObject({ npm: z.string().min(1) }), z.strictObject({ path: z.string().min(1) })]),
  /** Of the pack's own files (a folder's, hidden ones included), or of the bundle's bytes. */
  integrity,
  /** Each file's digest, by its path in the pack: a mismatch names the file. */
  files: z.record(z.string(), integrity).optional(),
  /** The packages installed for the pack (its node_modules, and its dependencies where Node finds them). */
  dependencies: z.array(z.strictObject({ name: z.string().min(1), version: z.string(), path: z.string().min(1), integrity })).optional(),
});
export type CodePackEntry = z.output<typeof codePackEntrySchema>;

export const lockSchema = z.strictObject({
  apiVersion: z.literal(LOCK_API_VERSION),
  agentctl: exactVersion,
  packs: z.array(lockEntrySchema).default([]),
  codePacks: z.array(codePackEntrySchema).optional(),
});
export type PackLock = z.output<typeof lockSchema>;
