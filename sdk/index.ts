// The public SDK: what builtins and third-party packs use to extend agentctl. Named exports only.
import type { z } from 'zod';
import type { ActionKind } from '../core/contracts.js';
import type { PluginApi, PluginDefinition } from '../core/host.js';

export type {
  ActionDescription,
  ActionKind,
  CommitEvent,
  DescribeContext,
  DispatchContext,
  EffectAccess,
  EffectClass,
  EffectOptions,
  EffectProfile,
  EffectRequest,
  Idempotency,
  JsonObject,
  JsonValue,
  PolicyRequest,
  PolicyVerdict,
  PreflightContext,
  ProcessAccess,
  ProcessDescription,
  ProcessLimits,
  ResolvedPolicy,
  Risk,
  SecretReference,
  SecretResolver,
  SecretResolverContext,
  TaskSecrets,
} from '../core/contracts.js';
export type { PluginApi, PluginDefinition, PluginHooks, TapOnly } from '../core/host.js';
export type { Diagnostic, Severity } from '../core/errors.js';
export type { ErrorCode } from '../core/error-codes.js';
/** Error with a stable code; what a plugin throws to report a user-facing problem. */
export { AgentctlError, EffectFailure, diagnostic } from '../core/errors.js';

/** Declares a plugin. The host checks the identity and host range when it is registered. */
export function definePlugin(definition: PluginDefinition): PluginDefinition {
  return Object.freeze({ ...definition });
}

/** An action kind plus the plugin identity that registers it. */
export interface ActionKindDefinition<ActionSchema extends z.ZodType, InputSchema extends z.ZodType>
  extends ActionKind<ActionSchema, InputSchema> {
  readonly version: string;
  readonly hostRange: string;
  /** Plugin name; defaults to the kind name. */
  readonly plugin?: string;
  /** Extra registration, e.g. policy taps that belong with this kind. */
  setup?(api: PluginApi): void;
}

/**
 * Declares an action kind as a plugin of its own. The kind's schemas are zod schemas: TypeScript types are
 * inferred from them, and `agentctl schema` publishes them.
 */
export function defineActionKind<ActionSchema extends z.ZodType, InputSchema extends z.ZodType>(
  definition: ActionKindDefinition<ActionSchema, InputSchema>,
): PluginDefinition & { readonly kind: ActionKind<ActionSchema, InputSchema> } {
  const { version, hostRange, plugin, setup, ...kind } = definition;
  const frozenKind = Object.freeze(kind) as ActionKind<ActionSchema, InputSchema>;
  return Object.freeze({
    name: plugin ?? definition.name,
    version,
    hostRange,
    description: definition.description,
    kind: frozenKind,
    setup(api: PluginApi) {
      api.registerActionKind(frozenKind);
      setup?.(api);
    },
  });
}
