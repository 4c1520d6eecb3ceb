// A top-level `spec` section owned by a plugin (e.g. `mcpServers`): its schema, the secrets and URLs it names, and a
// typed reader for the kinds that use it. The core knows sections only by key.
import type { z } from 'zod';
import type { JsonValue } from './json.js';
import type { SecretReference } from './secrets.js';

/** The plugin-owned sections of a compiled plan, by key, as their schemas parsed them (only those the document writes). */
export type SpecSectionValues = Readonly<Record<string, JsonValue>>;

/** A secret reference written in a section, with the path it is written at (e.g. `spec.mcpServers.docs.headers.Authorization`). */
export interface SectionSecret {
  readonly reference: SecretReference;
  readonly where: string;
}

/** A URL a section names, with the path it is written at; preflight checks it against the network policy. */
export interface SectionUrl {
  readonly url: string;
  readonly where: string;
}

/** A `spec` section a plugin registers with `api.registerSpecSection`. */
export interface SpecSection<Schema extends z.ZodType = z.ZodType> {
  /** The key under `spec`: a letter, then letters and digits (camelCase). */
  readonly key: string;
  readonly description: string;
  /**
   * Parses the section as written. It must accept an absent section (give it a default), rejects unknown fields, and
   * its output must be plain JSON: the plan that carries it is stored.
   */
  readonly schema: Schema;
  /** Secret references the section names: resolved in preflight when a task of a kind that reads the section will run. */
  secretReferences?(value: z.output<Schema>): readonly SectionSecret[];
  /** URLs the section names: checked against the network policy in preflight, with the secrets. */
  urls?(value: z.output<Schema>): readonly SectionUrl[];
}

/** A section with its typed reader. */
export interface DefinedSpecSection<Schema extends z.ZodType = z.ZodType> extends SpecSection<Schema> {
  /** The section's value in a plan's `sections` (a dispatch or input context's), or its default when the document omits it. */
  read(sections: SpecSectionValues | undefined): z.output<Schema>;
}

/** Declares a spec section; register it with `api.registerSpecSection` and read it with `section.read(context.sections)`. */
export function defineSpecSection<Schema extends z.ZodType>(section: SpecSection<Schema>): DefinedSpecSection<Schema> {
  const read = (sections: SpecSectionValues | undefined): z.output<Schema> => {
    const value = sections !== undefined && Object.hasOwn(sections, section.key) ? sections[section.key] : undefined;
    return value === undefined ? section.schema.parse(undefined) : (value as z.output<Schema>);
  };
  return Object.freeze({ ...section, read });
}
