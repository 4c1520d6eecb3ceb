// Runs one action as the only task of a workflow through the full host: compile, preflight, policy, the durable
// ledger in a real SQLite database, and dispatch.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { isAgentctlError, type Diagnostic, type JsonValue, type PluginDefinition, type RunInspection } from '@agentctl/sdk';
import { composeHost } from '../cli/composition.js';
import { compileText } from '../compiler/compile.js';
import { executeRun } from '../runner/run.js';
import { runInspection } from '../store/inspection.js';
import { Store } from '../store/store.js';
import { temporaryFolder, writeFiles, type FileFixtures } from './fixtures.js';

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
  /** Files written into the workspace before the run. */
  readonly files?: FileFixtures;
  /** Existing workspace folder, kept afterwards; a fresh temporary one, removed afterwards, otherwise. */
  readonly workspace?: string;
  /** Existing database file (e.g. `useDatabase().path`), kept afterwards; a fresh temporary one otherwise. */
  readonly database?: string;
}

/** What `runAction` observed: the run state, the task output and the whole ledger view. */
export interface ActionResult {
  /** The run's final state, or `rejected` when compile or preflight refused the workflow (no run exists). */
  readonly state: string;
  readonly output: JsonValue | undefined;
  /** Code of the first diagnostic when the run failed, paused or could not start. */
  readonly code?: string;
  readonly diagnostics: readonly Diagnostic[];
  /** The ledger view of the run (`agentctl inspect`), when one was created. */
  readonly inspection?: RunInspection;
  /** The workspace the action ran in; a temporary one is already removed. */
  readonly workspace: string;
}

/**
 * Runs one action of `kind` through a host with the builtins and `plugins`. Compile and preflight errors are
 * returned (state `rejected`), not thrown; only an unexpected error (not an agentctl error) is thrown.
 */
export async function runAction(kind: string, testCase: ActionCase = {}, plugins: readonly PluginDefinition[] = []): Promise<ActionResult> {
  return runThrough(kind, testCase, plugins, true);
}

/** runAction with `plugins` registered as embedded plugins (`main(args, {plugins})`), not as packs: core's own tests. */
export async function runEmbedded(kind: string, testCase: ActionCase = {}, plugins: readonly PluginDefinition[] = []): Promise<ActionResult> {
  return runThrough(kind, testCase, plugins, false);
}

async function runThrough(kind: string, testCase: ActionCase, plugins: readonly PluginDefinition[], pluginsAsPacks: boolean): Promise<ActionResult> {
  const host = composeHost({ plugins, pluginsAsPacks });
  const workspace = testCase.workspace ?? temporaryFolder('agentctl-kit-');
  const stateDir = testCase.database ? undefined : temporaryFolder('agentctl-kit-state-');
  const database = testCase.database ?? join(stateDir!, 'runtime.db');
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
  let store: Store | undefined;
  try {
    if (testCase.files) writeFiles(workspace, testCase.files);
    store = Store.open(database);
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
    // The document `agentctl inspect RUN --output json` prints, built by the same function.
    const inspection = runInspection(store, result.runId);
    const diagnostics = result.error?.diagnostics ?? [];
    return {
      state: result.state,
      output: (inspection.tasks[0]?.output as JsonValue | null | undefined) ?? undefined,
      ...(diagnostics[0] ? { code: diagnostics[0].code } : {}),
      diagnostics,
      inspection,
      workspace,
    };
  } catch (error) {
    if (!isAgentctlError(error)) throw error;
    return { state: 'rejected', output: undefined, code: error.diagnostics[0]?.code ?? error.code, diagnostics: error.diagnostics, workspace };
  } finally {
    store?.close();
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
    if (!testCase.workspace) rmSync(workspace, { recursive: true, force: true });
  }
}

