// A loaded pack's items join the workflow under `PACK.ITEM`: actions in spec.actions, agents in spec.agents and
// sub-workflows in spec.subworkflows, so the compiler checks and compiles them like the workflow's own. Inside a pack,
// `uses` names the pack's own items and are qualified the same way; names that already name
// another loaded pack's item (`action:example.base.assign`) are kept. Variable files of pack items are the pack's own:
// relative to its manifest's folder.
import { dirname, relative, sep } from 'node:path';
import { AgentctlError, diagnostic } from '@agentctl/sdk';
import { packRoot, type LoadedPack } from './load.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The workflow document with every pack's items added; the document itself is not changed. */
export function withPacks(document: unknown, packs: readonly LoadedPack[], file: string): unknown {
  if (!isObject(document) || !isObject(document.spec)) return document;
  const spec: Json = { ...document.spec };
  const sections = ['actions', 'agents', 'subworkflows'] as const;
  for (const section of sections) {
    const own = isObject(spec[section]) ? (spec[section] as Json) : {};
    for (const key of Object.keys(own)) {
      if (key.includes('.')) refuse('AGENTCTL_E_SCHEMA', `spec.${section}.${key}: names with "." are reserved for pack items (PACK.ITEM)`, file, `spec.${section}`);
    }
    spec[section] = { ...own };
  }
  if (packs.length === 0) return { ...document, spec };
  const names = new Set(packs.map((pack) => pack.entry.name));
  for (const { manifest, file: manifestFile } of packs) {
    if (Object.keys(manifest.tools).length > 0) {
      refuse('AGENTCTL_E_UNSUPPORTED', `pack ${manifest.name} declares tools (${Object.keys(manifest.tools).join(', ')}): pack tools are not supported yet`, file, 'spec.packs', 'declare the tool in the workflow\'s spec.tools, or use the pack\'s actions as action tools');
    }
    const qualify = (reference: string) => (isQualified(reference, names) ? reference : `${manifest.name}.${reference}`);
    const add = (section: (typeof sections)[number], name: string, value: unknown) => {
      const target = spec[section] as Json;
      const key = `${manifest.name}.${name}`;
      if (Object.hasOwn(target, key)) refuse('AGENTCTL_E_PACK_RESOLUTION', `pack ${manifest.name} collides at ${section}.${key}`, file, 'spec.packs');
      target[key] = value;
    };
    const fromManifest = varsFilesFrom(relative(packRoot(file), dirname(manifestFile)));
    for (const [name, action] of Object.entries(manifest.actions)) add('actions', name, action);
    // An agent's tools are the invoking workflow's (packs declare none in this version), so they stay as written.
    for (const [name, agent] of Object.entries(manifest.agents)) add('agents', name, { ...agent, ...fromManifest(agent.varsFiles) });
    for (const [name, workflow] of Object.entries(manifest.workflows)) add('subworkflows', name, { ...workflow, tasks: workflow.tasks.map((task) => ({ ...task, ...fromManifest(task.varsFiles), uses: qualifyUses(task.uses, qualify), ...(task.compensate ? { compensate: { ...task.compensate, uses: qualifyUses(task.compensate.uses, qualify) } } : {}) })) });
  }
  return { ...document, spec };
}

/**
 * A pack item's variable files are relative to the pack manifest's folder, as in the reference; the compiler reads
 * them from the workflow's folder, so they are prefixed with the manifest's folder below it (`vars.yaml` of
 * `packs/acme/agentctl.pack.yaml` becomes `packs/acme/vars.yaml`). A path is joined as written, never normalized:
 * a `..` in it stays visible to the compiler, which refuses it.
 */
function varsFilesFrom(folder: string): (files: readonly string[] | undefined) => { varsFiles?: string[] } {
  const prefix = folder === '' ? '' : `${folder.split(sep).join('/')}/`;
  return (files) => (files === undefined ? {} : { varsFiles: files.map((path) => (prefix === '' || path.trim() === '' || path.startsWith('/') ? path : `${prefix}${path}`)) });
}

/** `action:assign` inside pack P becomes `action:P.assign`; `router` stays. */
function qualifyUses(uses: string, qualify: (name: string) => string): string {
  const match = /^(action|agent|workflow):(.+)$/.exec(uses);
  return match ? `${match[1]}:${qualify(match[2]!)}` : uses;
}

/** A name that already names an item of a loaded pack. */
function isQualified(name: string, packs: ReadonlySet<string>): boolean {
  const dot = name.lastIndexOf('.');
  return dot > 0 && packs.has(name.slice(0, dot));
}

function refuse(code: 'AGENTCTL_E_SCHEMA' | 'AGENTCTL_E_UNSUPPORTED' | 'AGENTCTL_E_PACK_RESOLUTION', message: string, file: string, path: string, help?: string): never {
  throw new AgentctlError(code, message, { diagnostics: [diagnostic(code, { message, file, path, ...(help ? { help } : {}) })] });
}
