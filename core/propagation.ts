// Propagation: the context the core keeps while a task's dispatch and each effect's perform run, and what the
// registered propagators add from it to a child process's environment and to an outgoing HTTP request's headers.
// Made only when a plugin registered a propagator: without one, nothing here runs.
import { AsyncLocalStorage } from 'node:async_hooks';
import { AgentctlError, EffectFailure, NetworkFailure, type HttpRequest, type ProcessSpec, type PropagationContext, type Propagator } from '@agentctl/sdk';
import type { ErrorCodeRegistry } from './plugin-errors.js';

/** The context of one dispatch or effect, with the run's redactor: no propagated value may carry a secret value. */
interface Scope {
  readonly context: PropagationContext;
  readonly redact: (text: string) => string;
}

/** A propagator's environment entry, as `plan` names it. */
export interface PropagatedName {
  readonly name: string;
  readonly plugin: string;
}

const ENVIRONMENT_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// A value that could split a header or an environment block, or end a C string.
const UNSENDABLE = /[\r\n\0]/;

/** Checks a propagator when it is registered: a name, something to add, and well-formed environment names. */
export function checkPropagator(plugin: string, propagator: Propagator): void {
  const refuse = (problem: string) => {
    throw new AgentctlError('AGENTCTL_E_PLUGIN_INVALID', `plugin ${plugin} registers propagator ${String(propagator?.name)}: ${problem}`);
  };
  if (typeof propagator?.name !== 'string' || propagator.name === '') refuse('a propagator needs a name');
  const { environment, headers } = propagator;
  if (environment === undefined && headers === undefined) refuse('it adds neither environment entries nor headers');
  if (headers !== undefined && typeof headers !== 'function') refuse('headers must be a function');
  if (environment === undefined) return;
  if (typeof environment.values !== 'function' || !Array.isArray(environment.names) || environment.names.length === 0) refuse('environment needs names and a values function');
  for (const name of environment.names) if (typeof name !== 'string' || !ENVIRONMENT_NAME.test(name)) refuse(`${String(name)} is not an environment variable name`);
}

export class Propagation {
  readonly #scope = new AsyncLocalStorage<Scope>();
  readonly #propagators: readonly { readonly plugin: string; readonly propagator: Propagator }[];
  readonly #errors: ErrorCodeRegistry;

  constructor(propagators: readonly { readonly plugin: string; readonly propagator: Propagator }[], errors: ErrorCodeRegistry) {
    this.#propagators = propagators;
    this.#errors = errors;
  }

  /** Every environment entry a propagator declared, in registration order. */
  environmentNames(): PropagatedName[] {
    return this.#propagators.flatMap(({ plugin, propagator }) => (propagator.environment?.names ?? []).map((name) => ({ name, plugin })));
  }

  /** Runs `work` with `context` as what the processes it starts and the requests it sends propagate. */
  within<T>(context: PropagationContext, redact: (text: string) => string, work: () => Promise<T>): Promise<T> {
    return this.#scope.run({ context: Object.freeze({ ...context }), redact }, work);
  }

  /** The spec with the propagators' environment entries added (never over one it has); unchanged outside a task. */
  process(spec: ProcessSpec): ProcessSpec {
    const scope = this.#scope.getStore();
    if (!scope) return spec;
    const env = { ...spec.env };
    for (const { plugin, propagator } of this.#propagators) {
      if (!propagator.environment) continue;
      const declared = new Set(propagator.environment.names);
      const entries = this.#call(plugin, propagator, 'environment entries', () => propagator.environment!.values(scope.context), 'started');
      for (const [name, value] of entries) {
        if (!declared.has(name)) throw this.#refuse(plugin, propagator, `environment entry ${name}, which it did not declare`, 'started');
        this.#check(plugin, propagator, `environment entry ${name}`, value, scope, 'started');
        if (!Object.hasOwn(env, name)) env[name] = value;
      }
    }
    return { ...spec, env };
  }

  /** The request with the propagators' headers added (never over one it has, in any case); unchanged outside a task. */
  request(request: HttpRequest): HttpRequest {
    const scope = this.#scope.getStore();
    if (!scope) return request;
    const headers: Record<string, string> = { ...request.headers };
    const present = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
    for (const { plugin, propagator } of this.#propagators) {
      if (!propagator.headers) continue;
      const entries = this.#call(plugin, propagator, 'headers', () => propagator.headers!(scope.context), 'sent');
      for (const [name, value] of entries) {
        if (!HEADER_NAME.test(name)) throw this.#refuse(plugin, propagator, `a header whose name is not an HTTP token`, 'sent');
        this.#check(plugin, propagator, `header ${name}`, value, scope, 'sent');
        if (present.has(name.toLowerCase())) continue;
        present.add(name.toLowerCase());
        headers[name] = value;
      }
    }
    return { ...request, headers };
  }

  /** Calls the propagator; what it throws, or an answer that is not an object, fails the process or request. */
  #call(plugin: string, propagator: Propagator, what: string, call: () => unknown, target: Target): [string, unknown][] {
    let answer: unknown;
    try {
      answer = call();
    } catch (error) {
      throw failure(this.#errors.normalize(error, plugin, 'propagator'), target);
    }
    if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) throw this.#refuse(plugin, propagator, `${what} that are not an object of strings`, target);
    return Object.entries(answer);
  }

  /** A value must be a sendable string that holds no secret value of the run. Messages never quote the value. */
  #check(plugin: string, propagator: Propagator, what: string, value: unknown, scope: Scope, target: Target): asserts value is string {
    if (typeof value !== 'string' || UNSENDABLE.test(value)) throw this.#refuse(plugin, propagator, `${what} whose value is not a single-line string`, target);
    if (scope.redact(value) !== value) throw this.#refuse(plugin, propagator, `${what} whose value holds a secret value of the run`, target);
  }

  #refuse(plugin: string, propagator: Propagator, what: string, target: Target): Error {
    const problem = new Error(`propagator ${propagator.name} added ${what}; nothing was ${target}`);
    return failure(this.#errors.normalize(problem, plugin, 'propagator'), target);
  }
}

/** What a refusal stops: a process being started, or a request being sent. */
type Target = 'started' | 'sent';

/** A propagator's failure, before the process started or the request was sent: a definite failure of the effect. */
function failure(error: AgentctlError, target: Target): Error {
  const options = { diagnostics: error.diagnostics, cause: error };
  return target === 'started' ? new EffectFailure('failed', error.code, error.message, options) : new NetworkFailure(error.code, error.message, false, options);
}
