// The keys of the core's own `spec` sections, below the host that refuses them to plugins and the compiler whose
// envelope schema defines them (test/unit/compiler.test.ts keeps the two equal).
export const CORE_SPEC_KEYS: ReadonlySet<string> = new Set([
  'inputs',
  'vars',
  'varsFiles',
  'outputs',
  'policy',
  'runtime',
  'providers',
  'agents',
  'tools',
  'actions',
  'subworkflows',
  'packs',
  'packTrust',
  'tasks',
  'compensation',
  'memory',
]);
