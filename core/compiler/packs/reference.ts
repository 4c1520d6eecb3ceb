// The workflow side of declarative packs in the reference format: `spec.packs` entries, their sources, and
// `spec.packTrust`, with the reference's Rust-style version requirements. (Manifests and locks are in format.ts.)
import semverSatisfies from 'semver/functions/satisfies.js';
import validVersion from 'semver/functions/valid.js';
import validRange from 'semver/ranges/valid.js';
import { z } from 'zod';

/** A dotted pack name: `example.utility`. */
export const packName = z.string().regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)+$/, 'a pack name is fully qualified and dotted, e.g. example.utility');
export const exactVersion = z.string().refine((value) => validVersion(value) === value, 'version must be an exact semantic version such as 1.0.0');
export const integrity = z.string().regex(/^sha256:[0-9a-fA-F]{64}$/, 'integrity must be sha256: followed by 64 hexadecimal digits');

/**
 * A Rust-style version requirement (`^1.0`, `>=0.3.0, <1.0.0`, a bare `1.0.0` meaning `^1.0.0`) as a node-semver
 * range, or undefined when it does not parse.
 */
export function nodeRange(requirement: string): string | undefined {
  const comparators = requirement.split(',').map((part) => part.trim());
  if (comparators.some((part) => part === '')) return undefined;
  const translated = comparators.map((part) => (/^\d/.test(part) ? `^${part}` : part)).join(' ');
  return validRange(translated) === null ? undefined : translated;
}

export const satisfies = (version: string, requirement: string): boolean => {
  const range = nodeRange(requirement);
  return range !== undefined && semverSatisfies(version, range);
};

export const requirement = z.string().refine((value) => nodeRange(value) !== undefined, 'not a version requirement (e.g. "^1.0" or ">=0.3.0, <1.0.0")');

/** A contained relative path: resolved against the workflow's folder, never above it. */
const containedPath = z.string().refine((value) => value !== '' && !value.startsWith('/') && !value.includes('\\') && !value.split('/').some((segment) => segment === '..' || segment === ''), 'a pack path is relative to the workflow folder, without ".." or empty segments');

/** Where a pack comes from. Only local paths are supported in this version; archives and git are recognised to be refused clearly. */
export const packSourceSchema = z.union([
  z.strictObject({ path: containedPath }),
  z.strictObject({ git: z.string(), rev: z.string(), manifest: z.string().optional() }),
  z.strictObject({ url: z.string(), integrity, manifest: z.string().optional() }),
]);
export type PackSource = z.output<typeof packSourceSchema>;

export const signatureSchema = z.strictObject({ bundle: z.string().min(1), identity: z.string().min(1), issuer: z.string().min(1) });

/** A `spec.packs` entry: the source form, or the older `path` + `integrity` form. */
export const packReferenceSchema = z.strictObject({
  name: packName,
  version: z.string().min(1),
  source: packSourceSchema.optional(),
  signature: signatureSchema.optional(),
  path: containedPath.optional(),
  integrity: integrity.optional(),
});
export type PackReference = z.output<typeof packReferenceSchema>;

export const packTrustSchema = z.strictObject({
  unsigned: z.enum(['deny', 'warn', 'allow']).default('warn').describe('What an unsigned pack gets: refused, a warning, or nothing.'),
  identities: z.array(z.strictObject({ identity: z.string().min(1), issuer: z.string().min(1) })).default([]),
  allowUnsignedProcess: z.boolean().default(false).describe('Whether an unsigned pack may declare process actions (builtin.shell.exec, extension.process).'),
});
export type PackTrust = z.output<typeof packTrustSchema>;

