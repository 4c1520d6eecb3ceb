// The plugin-owned `spec` sections (e.g. `mcpServers`): their schemas join the envelope, and the values a document
// writes go into the compiled plan. The core knows them by key only.
import type { z } from 'zod';
import type { CompiledPlan, JsonValue, SectionSecret, SectionUrl, SpecSectionValues } from '@agentctl/sdk';
import type { Host } from '../host.js';
import { actionBaseSchema, envelopeSchema, type workflowEnvelope } from './envelope.js';

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

const envelopes = new WeakMap<Host, typeof workflowEnvelope>();

/** The envelope of `host`'s workflows: the core's sections and every registered one (built once per host). */
export function hostEnvelope(host: Host): typeof workflowEnvelope {
  let schema = envelopes.get(host);
  if (!schema) {
    schema = envelopeSchema(actionBaseSchema, sectionShape(host)) as unknown as typeof workflowEnvelope;
    envelopes.set(host, schema);
  }
  return schema;
}

/** The registered sections as a zod shape, key → schema. */
export function sectionShape(host: Host): Record<string, z.ZodType> {
  return Object.fromEntries(host.specSections().map((section) => [section.key, section.schema]));
}

/**
 * The sections the document writes, as their schemas parse them. `spec` is the parsed envelope's when it matched;
 * otherwise each section is parsed on its own and left out when it does not match (its problems are already reported).
 */
export function sectionValues(host: Host, document: unknown, spec?: Readonly<Record<string, unknown>>): { sections: SpecSectionValues; unreadable: ReadonlySet<string> } {
  const written = isObject(document) && isObject(document.spec) ? document.spec : {};
  const values: Record<string, JsonValue> = {};
  const unreadable = new Set<string>();
  for (const section of host.specSections()) {
    if (!Object.hasOwn(written, section.key)) continue;
    if (spec) {
      values[section.key] = spec[section.key] as JsonValue;
      continue;
    }
    const parsed = section.schema.safeParse(written[section.key]);
    if (parsed.success) values[section.key] = parsed.data as JsonValue;
    else unreadable.add(section.key);
  }
  return { sections: values, unreadable };
}

/** Whether a kind reads a section that did not parse: its tasks' inputs cannot be judged (the section's problems are reported). */
export const readsUnreadable = (host: Host, kind: string, unreadable: ReadonlySet<string>): boolean =>
  (host.actionKind(kind)?.sections ?? []).some((key) => unreadable.has(key));

/**
 * The secret references and URLs of the sections read by the kinds of `tasks` (each section once): what preflight
 * resolves and checks before a run.
 */
export function sectionUses(host: Host, plan: CompiledPlan, tasks: readonly { readonly kind: string }[]): { secrets: SectionSecret[]; urls: SectionUrl[] } {
  const keys = new Set(tasks.flatMap((task) => host.actionKind(task.kind)?.sections ?? []));
  const secrets: SectionSecret[] = [];
  const urls: SectionUrl[] = [];
  for (const key of keys) {
    const section = host.specSection(key);
    if (!section) continue;
    const value = Object.hasOwn(plan.sections ?? {}, key) ? plan.sections![key] : section.schema.parse(undefined);
    secrets.push(...(section.secretReferences?.(value) ?? []));
    urls.push(...(section.urls?.(value) ?? []));
  }
  return { secrets, urls };
}
