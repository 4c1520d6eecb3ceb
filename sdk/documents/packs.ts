// The documents of the commands about packs, plugins and the project config. The pack documents have the reference
// implementation's shapes (its manifest, lock and lock entries as it serializes them); what agentctl prints in
// addition (code packs, the file paths it wrote) is listed beside them and never replaces a reference field.
import { z } from 'zod';

const record = <T extends z.ZodType>(value: T) => z.record(z.string(), value);

/** Where a declarative pack comes from: a path below the workflow's folder, a pinned Git commit, or an archive. */
const PackSource = z.union([
  z.looseObject({ path: z.string() }),
  z.looseObject({ git: z.string(), rev: z.string(), manifest: z.string() }),
  z.looseObject({ url: z.string(), integrity: z.string(), manifest: z.string() }),
]);

const PackSignature = z.looseObject({ bundle: z.string(), identity: z.string(), issuer: z.string() });

/** The trust a lock entry records: `unsigned`, or the Sigstore identity that signed the manifest. */
const PackTrustRecord = z.union([
  z.looseObject({ status: z.literal('unsigned') }),
  z.looseObject({ status: z.literal('sigstore'), identity: z.string(), issuer: z.string(), bundleIntegrity: z.string() }),
]);

/** One pack of `agentctl.pack.lock`, as the reference writes it. */
const PackLockEntry = z.looseObject({
  name: z.string(),
  version: z.string(),
  source: PackSource,
  integrity: z.string(),
  compatibility: z.string(),
  dependencies: record(z.string()),
  signature: PackSignature.optional(),
  trust: PackTrustRecord,
});

/** One code pack of the lock: agentctl's extension of the reference's format. */
const CodePackLockEntry = z.looseObject({
  name: z.string(),
  version: z.string(),
  hostRange: z.string(),
  source: z.union([z.looseObject({ npm: z.string() }), z.looseObject({ path: z.string() })]),
  integrity: z.string(),
  files: record(z.string()).optional(),
  dependencies: z.array(z.looseObject({ name: z.string(), version: z.string(), path: z.string(), integrity: z.string() })).optional(),
});

/** The lock file's content: `agentctl.dev/pack-lock/v1`. */
const PackLockFile = z.looseObject({
  apiVersion: z.literal('agentctl.dev/pack-lock/v1'),
  agentctl: z.string(),
  packs: z.array(PackLockEntry),
  /** agentctl: the project config's code packs, when the lock holds any. */
  codePacks: z.array(CodePackLockEntry).optional(),
});

/** agentctl: each lock file a `packs lock` or `packs update` wrote, and how many entries of each kind it holds. */
const Written = z.array(z.looseObject({ path: z.string(), packs: z.number().int(), codePacks: z.number().int() }));

/** `packs lock`: the lock written beside the workflow (or, with no workflow, beside the project config). */
const PackLock = z.looseObject({ path: z.string(), lock: PackLockFile, written: Written });

const Tap = z.looseObject({ hook: z.string(), name: z.string(), stage: z.string() });

/** One setting of `config show`: its value and where the value came from (`default`, `flag`, the config file...). */
const setting = <T extends z.ZodType>(value: T) => z.looseObject({ value, source: z.string() });

/** The `data` of the `packs`, `plugins` and `config` commands, by kind. */
export const packDocuments = {
  /** `packs inspect`: the manifest as the reference prints it, plus where it was read and its digest. */
  PackInspection: z.looseObject({
    apiVersion: z.literal('agentctl.dev/pack/v1alpha1'),
    name: z.string(),
    version: z.string(),
    agentctl: z.string(),
    dependencies: record(z.looseObject({ version: z.string(), source: PackSource, signature: PackSignature.optional() })),
    actions: record(z.looseObject({ kind: z.string() })),
    agents: record(z.looseObject({})),
    tools: record(z.looseObject({})),
    workflows: record(z.looseObject({ version: z.string() })),
    capabilities: z.array(z.string()),
    providers: z.array(z.string()),
    policyDefaults: record(z.unknown()).nullable(),
    /** agentctl: asset digests the manifest declares. */
    files: record(z.string()),
    /** agentctl: the manifest file as given, its SHA-256, and the reference format version this release implements. */
    path: z.string(),
    integrity: z.string(),
    referenceFormatVersion: z.string(),
  }),
  PackVerification: z.looseObject({ path: z.string(), integrity: z.string(), valid: z.literal(true) }),
  PackLock,
  /** `packs update`: as `packs lock`, and the pack `--pack` named (null without `--pack`). */
  PackLockUpdate: PackLock.extend({ updated: z.string().nullable() }),
  PackLockVerification: z.looseObject({
    path: z.string(),
    valid: z.literal(true),
    packs: z.array(PackLockEntry),
    /** The warnings of loading the packs (an unsigned pack under `unsigned: warn`, a deprecated reference form). */
    warnings: z.array(z.string()),
    /** agentctl: the lock the config's code packs were checked against (null when the config has none), and those packs. */
    codeLock: z.string().nullable(),
    codePacks: z.array(z.looseObject({ name: z.string(), version: z.string() })),
  }),
  /** agentctl's `packs vendor`: the folder written, its config and lock, and what went in. */
  PackVendor: z.looseObject({
    out: z.string(),
    config: z.string(),
    lock: z.string(),
    codePacks: z.array(z.looseObject({ name: z.string(), file: z.string(), bytes: z.number().int() })),
    declarativePacks: z.array(z.string()),
    workflows: z.array(z.string()),
  }),
  /** agentctl's `packs new`: the pack made, the kinds and error-code prefix it has, where it was written and its files. */
  PackScaffold: z.looseObject({
    name: z.string(),
    namespace: z.string(),
    actionKinds: z.array(z.string()),
    errorCodePrefix: z.string(),
    path: z.string(),
    /** False when `--force` wrote the files into a folder that held others. */
    created: z.boolean(),
    files: z.array(z.string()),
  }),
  /** agentctl's `plugins list`: each registered plugin, what it owns and the hook taps it adds. */
  PluginList: z.looseObject({
    plugins: z.array(
      z.looseObject({
        name: z.string(),
        version: z.string(),
        hostRange: z.string(),
        description: z.string(),
        source: z.string(),
        actionKinds: z.array(z.string()),
        secretForms: z.array(z.string()),
        isolationModes: z.array(z.string()),
        providers: z.array(z.string()),
        toolKinds: z.array(z.string()),
        specSections: z.array(z.string()),
        planEmitters: z.array(z.string()),
        runReporters: z.array(z.string()),
        /** The long-term memory stores it owns, by provider name (`spec.memory.longTerm.provider`). */
        memoryStores: z.array(z.string()),
        network: z.boolean(),
        errorCodes: z.array(z.string()),
        taps: z.array(Tap),
      }),
    ),
  }),
  /** agentctl's `plugins order --hook NAME`: the hook's taps in calling order (a policy tap's stage by name). */
  HookOrder: z.looseObject({ hook: z.string(), taps: z.array(Tap.extend({ plugin: z.string() })) }),
  /** agentctl's `config show`: the config file in effect (null for none) and each setting with its origin. */
  ConfigShow: z.looseObject({
    file: z.string().nullable(),
    searchedFrom: z.string().nullable(),
    settings: z.looseObject({
      db: setting(z.string()),
      output: setting(z.enum(['human', 'json', 'jsonl'])),
      color: setting(z.enum(['auto', 'always', 'never'])),
      packs: setting(z.array(z.looseObject({ name: z.string().optional(), path: z.string().optional(), options: z.unknown().optional() }))),
      /** Key id → the environment variable that holds that state key here (docs/state-encryption.md). */
      stateKeys: setting(z.record(z.string(), z.string())),
    }),
  }),
} satisfies Record<string, z.ZodType>;
