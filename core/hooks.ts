// Every hook of the host, declared once. Plugins tap these through the facades in host.ts; only the core calls them.
import { AsyncParallelHook, AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook, HookMap } from 'tapable';
import type {
  CommitEvent,
  DispatchContext,
  JsonValue,
  PolicyRequest,
  PolicyVerdict,
  PreflightContext,
  SecretReference,
  SecretResolverContext,
} from './contracts.js';
import type { CompiledPlan } from './plan.js';

/** Read-only facts about the document being compiled. */
export interface CompileContext {
  readonly file: string;
  readonly source: string;
}

export function createHooks() {
  return Object.freeze({
    /** Validate and transform the compiled plan. Failure policy: a throw aborts compilation with diagnostics. */
    compile: new AsyncSeriesWaterfallHook<[CompiledPlan, CompileContext]>(['plan', 'context'], 'compile'),
    /**
     * Decide about one effect; the first verdict wins. Failure policy: fail closed — a throw, or no tap
     * returning a verdict, denies the effect.
     */
    policy: new AsyncSeriesBailHook<[PolicyRequest], PolicyVerdict | undefined>(['request'], 'policy'),
    /** Check prerequisites before a run record exists. Failure policy: any report or throw aborts before any state. */
    preflight: new AsyncParallelHook<[PreflightContext]>(['context'], 'preflight'),
    /**
     * Perform one task of a kind, keyed by action kind. Failure policy: a throw fails the task; effects it
     * recorded end failed or uncertain, never lost.
     */
    dispatch: new HookMap((kind: string) => new AsyncSeriesBailHook<[DispatchContext], JsonValue | undefined>(['context'], `dispatch:${kind}`)),
    /** Observe a fact after its durable commit. Failure policy: errors are collected and reported, never undo the commit. */
    commit: new AsyncSeriesHook<[CommitEvent]>(['event'], 'commit'),
    /** Resolve a secret reference, keyed by reference form. Failure policy: a throw fails preflight. */
    secretResolver: new HookMap(
      (form: string) =>
        new AsyncSeriesBailHook<[SecretReference, SecretResolverContext], string | undefined>(['reference', 'context'], `secret:${form}`),
    ),
  });
}

export type Hooks = ReturnType<typeof createHooks>;
