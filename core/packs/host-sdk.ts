// The SDK a pack gets is the host's own: before the first pack is imported, every name a pack may import the SDK by is
// mapped to the module this agentctl itself runs (see sdk-hooks.ts for the hook, and docs/packs.md).

/** How the host reaches its own SDK modules: the SDK package it depends on, and its own test kit (a self-reference). */
const HOST = {
  sdk: '@agentctl/sdk',
  documents: '@agentctl/sdk/documents',
  processHelpers: '@agentctl/sdk/process',
  testing: '@agentctl/cli/testing',
} as const;

/** The names a pack may import, each with the host module it gets: today's and the older `agentctl/sdk*`. */
const PACK_SPECIFIERS: Readonly<Record<string, keyof typeof HOST>> = {
  '@agentctl/sdk': 'sdk',
  '@agentctl/sdk/documents': 'documents',
  '@agentctl/sdk/process': 'processHelpers',
  '@agentctl/testing': 'testing',
  'agentctl/sdk': 'sdk',
  'agentctl/sdk/documents': 'documents',
  'agentctl/sdk/process': 'processHelpers',
  'agentctl/sdk/testing': 'testing',
};

/** What `packs vendor` leaves outside a bundle: exactly the names the hook gives the host's modules for. */
export const SDK_EXTERNALS: readonly string[] = Object.keys(PACK_SPECIFIERS);

/** Each pack-facing specifier → the URL of the host's module (resolved from the host's own package). */
export function hostSdkModules(): Record<string, string> {
  const urls = Object.fromEntries(Object.entries(HOST).map(([key, specifier]) => [key, import.meta.resolve(specifier)])) as Record<keyof typeof HOST, string>;
  return Object.fromEntries(Object.entries(PACK_SPECIFIERS).map(([specifier, key]) => [specifier, urls[key]]));
}

let ready: Promise<void> | undefined;

/** Installs the hook before the first pack import; later calls wait for the same installation. */
export function useHostSdk(): Promise<void> {
  ready ??= import('./sdk-hooks.js').then(({ installSdkHooks }) => installSdkHooks(hostSdkModules()));
  return ready;
}
