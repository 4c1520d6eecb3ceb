// The module-resolution hook that gives every pack the SDK of the agentctl that loads it. A vendored bundle or a local
// code pack imports the SDK by name (`@agentctl/sdk`, or `agentctl/sdk` in packs written before the rename); Node would
// look for that name in a node_modules above the pack, which a global install, `npx` or the image does not have, and a
// copy installed beside the pack would be a second SDK whose classes and brands the host does not recognise. The hook
// maps those names, and only those, to the host's own modules, whoever imports them: one SDK instance per process.
//
// This file is loaded twice over: by the CLI, which calls `installSdkHooks` just before the first pack is imported,
// and, on Node without `module.registerHooks` (before 22.15), by Node's hooks thread, which calls `initialize` and
// `resolve`. It must stay its own file (scripts/bundle-cli.mjs keeps it out of the bundle, so `import.meta.url` is
// this file) and import nothing but node's own modules: the hooks thread loads it without the CLI around it.
import module from 'node:module';

/** Specifier → URL of the host's module. */
export type SdkModules = Readonly<Record<string, string>>;

interface ResolveResult {
  readonly url: string;
  readonly shortCircuit?: boolean;
  readonly format?: string | null;
}
type NextResolve = (specifier: string, context?: unknown) => ResolveResult | Promise<ResolveResult>;

let modules: SdkModules = {};

/** Receives the map: from `module.register`'s `data` on the hooks thread, directly with `registerHooks`. */
export function initialize(data: { readonly modules: SdkModules }): void {
  modules = { ...data.modules };
}

/**
 * A mapped specifier is the host's module, without looking at the importer's folder; anything else resolves as usual.
 * The host's SDK modules are ES modules, so the format is given rather than looked up again.
 */
export function resolve(specifier: string, context: unknown, nextResolve: NextResolve): ResolveResult | Promise<ResolveResult> {
  const url = Object.hasOwn(modules, specifier) ? modules[specifier] : undefined;
  return url === undefined ? nextResolve(specifier, context) : { url, format: 'module', shortCircuit: true };
}

interface HookModule {
  registerHooks?: (hooks: { resolve: typeof resolve }) => unknown;
  register: (specifier: string, options: { data: unknown }) => void;
}

let installed = false;

/**
 * Installs the hook once per process. `registerHooks` (Node 22.15+) runs it on this thread and covers `require` too;
 * Node 20's `register` runs it on a hooks thread that Node starts for it, which is why it is installed only when a
 * pack is about to load: a command without packs never pays for that thread.
 */
export function installSdkHooks(map: SdkModules): void {
  if (installed) return;
  installed = true;
  const node = module as unknown as HookModule;
  if (typeof node.registerHooks === 'function') {
    initialize({ modules: map });
    node.registerHooks({ resolve });
  } else {
    node.register(import.meta.url, { data: { modules: map } });
  }
}
