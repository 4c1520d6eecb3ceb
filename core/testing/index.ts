// The test kit, published to plugin authors as `agentctl/sdk/testing`: a real host (the builtins plus the plugins under
// test), a real temporary SQLite ledger and a real workspace. It is built on core, so it lives outside sdk/.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { isAgentctlError, type Diagnostic, type JsonValue, type PluginDefinition } from '../../sdk/index.js';
import { composeHost } from '../cli/composition.js';
import type { Host } from '../host.js';
import { compileText } from '../compiler/compile.js';
import { executeRun } from '../runner/run.js';
import { inspectRun, type RunInspection } from '../store/inspection.js';
import { Store } from '../store/store.js';

/** A ready host with the builtins and the given plugins registered. */
export function createTestHost(plugins: readonly PluginDefinition[] = []): Host {
  return composeHost({ plugins });
}

/** One action executed as the only task of a workflow. */
export interface ActionCase {
  /** Action fields besides `kind`. */
  readonly action?: Record<string, unknown>;
  /** The task's `with`. */
  readonly input?: JsonValue;
  /** Policy overrides; approval defaults to `never` here so cases test the kind, not approval. */
  readonly policy?: Record<string, unknown>;
  /** Environment that secret resolvers see (agentctl's own environment is not used). */
  readonly environment?: Record<string, string>;
  /** Declared workflow inputs, for a `with` that uses templates. */
  readonly inputs?: Record<string, JsonValue>;
  /** Extra task fields (timeoutSeconds, retry, failure, outputSchema, ...). */
  readonly task?: Record<string, unknown>;
  /** Existing workspace folder; a fresh temporary one otherwise. */
  readonly workspace?: string;
}

/** What `runAction` observed: the run state, the task output and the whole ledger view. */
export interface ActionResult {
  readonly state: string;
  readonly output: JsonValue | undefined;
  /** Code of the first diagnostic when the run failed, paused or could not start. */
  readonly code?: string;
  readonly diagnostics: readonly Diagnostic[];
  /** The whole ledger view of the run, when one was created. */
  readonly inspection?: RunInspection;
  readonly workspace: string;
}

/**
 * Runs one action of `kind` through the full host: compile, preflight, policy, durable ledger, dispatch.
 * Compile and preflight errors are returned (state `rejected`), not thrown.
 */
export async function runAction(kind: string, testCase: ActionCase = {}, plugins: readonly PluginDefinition[] = []): Promise<ActionResult> {
  const host = createTestHost(plugins);
  const workspace = testCase.workspace ?? realpathSync(mkdtempSync(join(tmpdir(), 'agentctl-kit-')));
  const stateDir = realpathSync(mkdtempSync(join(tmpdir(), 'agentctl-kit-state-')));
  const document = {
    apiVersion: 'agentctl.dev/v1',
    kind: 'Workflow',
    metadata: { name: 'kit' },
    spec: {
      inputs: testCase.inputs ?? {},
      policy: { approval: 'never', ...testCase.policy },
      actions: { subject: { kind, ...testCase.action } },
      tasks: [{ id: 'subject', uses: 'action:subject', with: testCase.input ?? {}, ...testCase.task }],
      outputs: {},
    },
  };
  const text = stringify(document);
  const store = Store.open(join(stateDir, 'runtime.db'));
  try {
    const { plan } = await compileText(host, join(workspace, 'workflow.yaml'), text);
    const result = await executeRun({
      host,
      store,
      plan,
      file: 'workflow.yaml',
      source: text,
      workspaceRoot: workspace,
      signal: new AbortController().signal,
      environment: testCase.environment ?? {},
    });
    const inspection = inspectRun(store, result.runId);
    const task = inspection.tasks[0]!;
    const diagnostics = result.error?.diagnostics ?? [];
    return {
      state: result.state,
      output: task.output ?? undefined,
      ...(diagnostics[0] ? { code: diagnostics[0].code } : {}),
      diagnostics,
      inspection,
      workspace,
    };
  } catch (error) {
    if (!isAgentctlError(error)) throw error;
    return { state: 'rejected', output: undefined, code: error.diagnostics[0]?.code ?? error.code, diagnostics: error.diagnostics, workspace };
  } finally {
    store.close();
    rmSync(stateDir, { recursive: true, force: true });
    if (!testCase.workspace) rmSync(workspace, { recursive: true, force: true });
  }
}

/** Valid cases must succeed (and match `output` when given); invalid ones must fail with `code`. */
export interface ActionKindCases {
  readonly valid: readonly (ActionCase & { readonly name: string; readonly output?: JsonValue })[];
  readonly invalid: readonly (ActionCase & { readonly name: string; readonly code: string })[];
}

type TestFunction = (name: string, body: () => Promise<void>) => void;

/**
 * Declares one test per case with the test framework's global `describe`/`it` (mocha, node:test, jest).
 * Like ESLint's RuleTester: the builtins are tested with exactly this.
 */
export function testActionKind(kind: string, cases: ActionKindCases, plugins: readonly PluginDefinition[] = []): void {
  const globals = globalThis as unknown as { describe?: (name: string, body: () => void) => void; it?: TestFunction };
  if (!globals.describe || !globals.it) throw new Error('testActionKind needs global describe and it (run it under mocha or a compatible runner)');
  const it = globals.it;
  globals.describe(`${kind} (action kind cases)`, () => {
    for (const testCase of cases.valid) {
      it(`valid: ${testCase.name}`, async () => {
        const result = await runAction(kind, testCase, plugins);
        if (result.state !== 'succeeded') throw new Error(`expected success, got ${result.state}: ${result.diagnostics.map((item) => `${item.code} ${item.message}`).join('; ')}`);
        if (testCase.output !== undefined && JSON.stringify(result.output) !== JSON.stringify(testCase.output)) {
          throw new Error(`output ${JSON.stringify(result.output)} differs from expected ${JSON.stringify(testCase.output)}`);
        }
      });
    }
    for (const testCase of cases.invalid) {
      it(`invalid: ${testCase.name}`, async () => {
        const result = await runAction(kind, testCase, plugins);
        if (result.state === 'succeeded') throw new Error(`expected ${testCase.code}, but the action succeeded`);
        if (!result.diagnostics.some((item) => item.code === testCase.code)) {
          throw new Error(`expected ${testCase.code}, got ${result.diagnostics.map((item) => item.code).join(', ') || result.state}`);
        }
      });
    }
  });
}
