// The action-kind tester, in the manner of ESLint's RuleTester: a table of valid and invalid cases becomes one test per
// case, each run through the full host by runAction. The builtins' own tests use exactly this.
import type { JsonValue, PluginDefinition } from '@agentctl/sdk';
import { runAction, type ActionCase, type ActionResult } from './run-action.js';

/** A case that must succeed; with `output`, the task output must equal it (compared as JSON values). */
export interface ValidActionCase extends ActionCase {
  readonly name: string;
  readonly output?: JsonValue;
}

/** What an invalid case must end with: a diagnostic of this code, and (when given) a message containing or matching `message`. */
export interface ExpectedError {
  readonly code: string;
  readonly message?: string | RegExp;
}

/** A case that must not succeed, ending with `error`. */
export interface InvalidActionCase extends ActionCase {
  readonly name: string;
  readonly error: ExpectedError;
}

/** The cases of one action kind. */
export interface ActionKindCases {
  readonly valid: readonly ValidActionCase[];
  readonly invalid: readonly InvalidActionCase[];
}

/** Options of an ActionKindTester. */
export interface ActionKindTesterOptions {
  /** Plugins registered after the builtins for every case, e.g. the pack under test. */
  readonly plugins?: readonly PluginDefinition[];
}

type Runner = {
  describe?: (name: string, body: () => void) => void;
  it?: (name: string, body: () => Promise<void>) => void;
};

/** Equal as JSON values: the same members, object keys in any order. */
function sameJson(left: unknown, right: unknown): boolean {
  if (Array.isArray(left) || Array.isArray(right)) {
    return Array.isArray(left) && Array.isArray(right) && left.length === right.length && left.every((item, index) => sameJson(item, right[index]));
  }
  if (typeof left === 'object' && left !== null && typeof right === 'object' && right !== null) {
    const keys = Object.keys(left);
    return keys.length === Object.keys(right).length && keys.every((key) => Object.hasOwn(right, key) && sameJson((left as never)[key], (right as never)[key]));
  }
  return Object.is(left, right);
}

const summary = (result: ActionResult) => result.diagnostics.map((item) => `${item.code}: ${item.message}`).join('; ') || result.state;

/** Throws unless a valid case's result is a success with the expected output. */
export function assertValid(testCase: ValidActionCase, result: ActionResult): void {
  if (result.state !== 'succeeded') throw new Error(`expected success, got ${result.state}: ${summary(result)}`);
  if (testCase.output !== undefined && !sameJson(result.output, testCase.output)) {
    throw new Error(`output ${JSON.stringify(result.output)} differs from the expected ${JSON.stringify(testCase.output)}`);
  }
}

/** Throws unless an invalid case's result failed with the expected code (and message). */
export function assertInvalid(testCase: InvalidActionCase, result: ActionResult): void {
  const { code, message } = testCase.error;
  if (result.state === 'succeeded') throw new Error(`expected ${code}, but the action succeeded with ${JSON.stringify(result.output)}`);
  const matching = result.diagnostics.filter((item) => item.code === code);
  if (matching.length === 0) throw new Error(`expected ${code}, got ${summary(result)}`);
  const fits = (text: string) => (message === undefined ? true : typeof message === 'string' ? text.includes(message) : message.test(text));
  if (!matching.some((item) => fits(item.message))) throw new Error(`expected a ${code} message matching ${String(message)}, got ${summary(result)}`);
}

/**
 * Runs tables of action-kind cases. `run` declares a `describe` for the kind and one `it` per case with the test
 * runner's globals (mocha, or a compatible runner); each case runs through the full host with a fresh ledger.
 *
 * ```ts
 * new ActionKindTester({ plugins: [hello] }).run('hello.greet', {
 *   valid: [{ name: 'greets', input: { name: 'Ada' }, output: { greeting: 'Hello, Ada!' } }],
 *   invalid: [{ name: 'needs a name', input: {}, error: { code: 'AGENTCTL_E_SCHEMA' } }],
 * });
 * ```
 */
export class ActionKindTester {
  readonly #plugins: readonly PluginDefinition[];

  constructor(options: ActionKindTesterOptions = {}) {
    this.#plugins = options.plugins ?? [];
  }

  /** Declares one test per case. */
  run(kind: string, cases: ActionKindCases): void {
    const runner = globalThis as Runner;
    if (!runner.describe || !runner.it) throw new Error('ActionKindTester.run needs global describe and it (run it under mocha or a compatible runner)');
    const it = runner.it;
    runner.describe(`${kind} (action kind cases)`, () => {
      for (const testCase of cases.valid) it(`valid: ${testCase.name}`, async () => assertValid(testCase, await this.runCase(kind, testCase)));
      for (const testCase of cases.invalid) it(`invalid: ${testCase.name}`, async () => assertInvalid(testCase, await this.runCase(kind, testCase)));
    });
  }

  /** Runs one action with this tester's plugins: `runAction` for tests written by hand beside the tables. */
  runCase(kind: string, testCase: ActionCase = {}): Promise<ActionResult> {
    return runAction(kind, testCase, this.#plugins);
  }
}
