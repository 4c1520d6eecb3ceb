// builtin.shell.exec: one allowlisted process, no shell, empty environment, bounded output, whole-tree kill. The
// process itself is run by the isolation mode the action names, through the host's process service.
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import {
  commandPreflight,
  defineActionKind,
  describeProcess,
  prepareProcess,
  processEffectAccess,
  processFailure,
  processSecretReferences,
  redactedOutput,
  type DispatchContext,
  type JsonObject,
  type ProcessResult,
} from '@agentctl/sdk';
import { MAX_ARTIFACT_BYTES, shellExecActionSchema, shellExecInputSchema, type ShellExecAction, type ShellExecInput } from './schema.js';

export default defineActionKind({
  plugin: 'builtin.shell.exec',
  name: 'builtin.shell.exec',
  version: '0.1.0',
  hostRange: '^0.1.0',
  description: 'Runs one allowlisted executable with static arguments (and run-time ones from the task), without a shell, under the isolation mode it names.',
  actionSchema: shellExecActionSchema,
  inputSchema: shellExecInputSchema,
  effect: { effectClass: 'process_execution', risk: 'high', idempotency: 'unknown' },
  secretReferences: processSecretReferences,
  describe(action, context) {
    const { effects, process } = describeProcess(action, context, { operation: 'process.exec', access: (executable) => accessOf(action, executable) });
    return { ...(effects ? { effects } : {}), process: { ...process, ...(action.artifacts.length > 0 ? { artifacts: action.artifacts } : {}) } };
  },
  setup(api) {
    // A command that does not resolve fails before the run exists, not halfway through it.
    api.hooks.preflight.tapPromise('builtin.shell.exec', commandPreflight('builtin.shell.exec'));
  },
  dispatch: (context) => execute(context),
});

/**
 * What the effect asks policy for; `describe` gives the same before the run. The declared output files are writes:
 * a command may only declare as its output what policy lets it write.
 */
const accessOf = (action: ShellExecAction, executable: string) => processEffectAccess(action, executable, { writes: action.artifacts });

async function execute(context: DispatchContext<ShellExecAction, ShellExecInput>) {
  const { action, input } = context;
  // Run-time arguments come after the static ones: the action decides the program and its leading arguments.
  const args = [...action.args, ...input.args];
  const stdin = input.stdin === undefined ? undefined : Buffer.from(input.stdin, 'utf8');
  const prepared = await prepareProcess(action, context, { args });
  const request = {
    operation: 'process.exec',
    // stdin is recorded by size and digest, as a write records its content; the task row holds the rendered text.
    input: {
      ...prepared.recorded,
      ...(stdin === undefined ? {} : { stdin: { bytes: stdin.length, sha256: createHash('sha256').update(stdin).digest('hex') } }),
    },
    access: accessOf(action, prepared.executable),
  };
  return context.effect(request, async (signal, effect) => {
    const result = await context.process.run(prepared.spec({ name: effect.id, args, ...(stdin === undefined ? {} : { stdin }) }), signal);
    const ended = outcome(result, context, basename(prepared.executable), prepared.limits.timeoutSeconds);
    if (action.artifacts.length === 0) return ended;
    // Collected inside the effect, so the digests are part of its recorded result, as the bytes were when it ended.
    const artifacts: JsonObject[] = [];
    for (const path of action.artifacts) artifacts.push({ ...(await context.files.collect(path, { maxBytes: MAX_ARTIFACT_BYTES })) });
    return { ...ended, artifacts };
  });
}

function outcome(result: ProcessResult, context: DispatchContext<ShellExecAction, ShellExecInput>, name: string, timeoutSeconds: number) {
  const { stdout, stderr } = redactedOutput(result, context.redact);
  const failure = processFailure(result, { name, timeoutSeconds, taskTimeoutSeconds: context.task.timeoutSeconds, stdout, stderr });
  if (failure) throw failure;
  return { exitCode: 0, stdout, stderr };
}
