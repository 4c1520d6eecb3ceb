// Every hook of the host, declared once. Plugins tap these through the facades of host.ts; only the core calls them.
import { AsyncParallelHook, AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook, HookMap } from 'tapable';
import type {
  CommitEvent,
  CompileContext,
  CompiledPlan,
  DispatchContext,
  DispatchInterceptorInput,
  EffectInterceptorInput,
  InterceptorNext,
  JsonValue,
  PolicyRequest,
  PolicyVote,
  PreflightContext,
  Propagator,
  SecretReference,
  SecretResolverContext,
} from '@agentctl/sdk';

/**
 * An event as the `commit` hook carries it. The publisher (runner/publisher.ts) always sets `at`; the hook itself also
 * takes an event made by hand without one (the host's own tests call it directly).
 */
export type ObservedEvent = Omit<CommitEvent, 'at'> & { readonly at?: string };

/** Collects what commit observers threw, so one failing observer never hides an event from the others. */
export interface CommitSink {
  fail(error: unknown): void;
}

/** Collects the votes of plugin policy taps for one request; the core reads it after the hook ran. */
export interface PolicyBallot {
  cast(plugin: string, vote: PolicyVote): void;
}

export function createHooks() {
  return Object.freeze({
    /** Validate and transform the compiled plan. Failure policy: a throw aborts compilation with diagnostics (exit 2). */
    compile: new AsyncSeriesWaterfallHook<[CompiledPlan, CompileContext]>(['plan', 'context'], 'compile'),
    /**
     * Plugin votes about one effect, after the core's own checks allowed it (or asked for approval). Every tap runs;
     * a tap can only deny or require approval, and the most restrictive answer wins. Failure policy: fail closed —
     * the facade turns a throw or a malformed vote into a denial.
     */
    policy: new AsyncSeriesHook<[PolicyRequest, PolicyBallot]>(['request', 'ballot'], 'policy'),
    /** Check prerequisites before a run record exists. Failure policy: any report or throw aborts before any state. */
    preflight: new AsyncParallelHook<[PreflightContext]>(['context'], 'preflight'),
    /**
     * Perform one task of a kind, keyed by action kind; only the kind's owner taps it. Failure policy: a throw fails
     * the task; effects it recorded end failed or uncertain, never lost.
     */
    dispatch: new HookMap((kind: string) => new AsyncSeriesBailHook<[DispatchContext], JsonValue | undefined>(['context'], `dispatch:${kind}`)),
    /**
     * Observe a fact after its durable commit (and the notices between them), in `seq` order, off the effects'
     * critical path: only the run's publisher (runner/publisher.ts) delivers events, never the code that records them.
     * Failure policy: observers run in order, each bounded by a timeout (5 s); a throw or a timeout becomes one warning
     * of the run per observer, a timed-out observer sees no later event of the run, every other observer still sees
     * every event, and nothing undoes the commit or delays or fails an effect.
     */
    commit: new AsyncSeriesHook<[ObservedEvent, CommitSink]>(['event', 'sink'], 'commit'),
    /** Resolve a secret reference, keyed by reference form; one owner per form. Failure policy: a throw fails preflight. */
    secretResolver: new HookMap(
      (form: string) => new AsyncSeriesBailHook<[SecretReference, SecretLookup], string | undefined>(['reference', 'context'], `secret:${form}`),
    ),
  });
}

export type Hooks = ReturnType<typeof createHooks>;

/** The service the host adds to a secret resolver's context (plugin-api.ts). */
type ResolverProcess = Pick<SecretResolverContext, keyof { process: unknown }>;
/** What the core asks a secret resolver with: the host adds its process service unless one is given. */
export type SecretLookup = Omit<SecretResolverContext, keyof ResolverProcess> & Partial<ResolverProcess>;

// Interceptors and propagation (docs/plugin-api.md#interceptors). Not tapable hooks — a wrapper needs `next`, which no
// tapable class offers — but declared here beside them: plugins add to these lists through their PluginApi until the
// host is ready, core/interceptors.ts composes them once, and only the core calls the result.

/** One plugin's wrapper in a chain. */
export interface ChainLink<Input> {
  readonly plugin: string;
  readonly name: string;
  readonly around: (input: Input, next: InterceptorNext) => Promise<JsonValue>;
}

export function createInterceptorChains() {
  return Object.freeze({
    /**
     * Around each effect's perform, in plugin registration order, the first outermost. Failure policy: a throw before
     * `next` fails the effect (`failed`: nothing was performed), after it makes the effect `uncertain`; either fails
     * the task with the plugin named (hook `interceptor:effect`).
     */
    effect: [] as ChainLink<EffectInterceptorInput>[],
    /**
     * Around each dispatch of an action kind, in the same order. Failure policy: a throw fails the task with the plugin
     * named (hook `interceptor:dispatch`); the effects recorded inside keep their outcomes.
     */
    dispatch: [] as ChainLink<DispatchInterceptorInput>[],
    /**
     * What each process and HTTP request of a task gets added, in registration order (an entry already set wins).
     * Failure policy: a throw, or an entry it did not declare or may not send, fails the effect before the process
     * starts or the request is sent (`failed`), naming the plugin (hook `propagator`).
     */
    propagators: [] as { readonly plugin: string; readonly propagator: Propagator }[],
  });
}

export type InterceptorChains = ReturnType<typeof createInterceptorChains>;
