// Every hook of the host, declared once. Plugins tap these through the facades of host.ts; only the core calls them.
import { AsyncParallelHook, AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook, HookMap } from 'tapable';
import type {
  CommitEvent,
  CompileContext,
  CompiledPlan,
  DispatchContext,
  JsonValue,
  PolicyRequest,
  PolicyVote,
  PreflightContext,
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
