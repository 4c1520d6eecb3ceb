// extension.process: a program outside agentctl, run under the isolation mode the action names, speaking
// agentctl.dev/process-extension/v1. One effect, two launches: a handshake that must confirm the action's contract
// (nothing has happened yet, so its failures are definite), then one invocation with the effect id and the input
// (it may act before anything goes wrong, so every failure from then on is uncertain).
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import {
  canonicalJson,
  commandPreflight,
  defineActionKind,
  describeProcess,
  EffectFailure,
  jsonSchemaProblems,
  prepareProcess,
  processEffectAccess,
  processFailure,
  processSecretReferences,
  redactedOutput,
  tail,
  type DispatchContext,
  type ErrorCode,
  type JsonObject,
  type JsonValue,
  type ProcessResult,
} from '@agentctl/sdk';
import { handshakeDifference, oneObject, responseProblem } from './protocol.js';
import { actionInputSchema, extensionProcessActionSchema, extensionProcessInputSchema, PROTOCOL_VERSION, type ExtensionProcessAction } from './schema.js';

const KIND = 'extension.process';
/** The operation the effect names: one invocation of an extension (its handshake included). */
const OPERATION = 'extension.invoke';
/** A value the handshake answered is quoted in a message up to this many characters (redacted, then cut). */
const QUOTE = 80;

export default defineActionKind({
  plugin: KIND,
  name: KIND,
  version: '0.1.0',
  hostRange: '^0.1.0',
  description: `Runs an out-of-process extension speaking ${PROTOCOL_VERSION}: a handshake that must confirm the action's schemas and capabilities, then one invocation with the effect id and the task input.`,
  actionSchema: extensionProcessActionSchema,
  inputSchema: extensionProcessInputSchema,
  effect: { effectClass: 'process_execution', risk: 'high', idempotency: 'unknown' },
  profileFor: (action) => ({ effectClass: 'process_execution', risk: 'high', idempotency: action.idempotency }),
  inputSchemaFor: actionInputSchema,
  secretReferences: processSecretReferences,
  describe(action, context) {
    const { effects, process } = describeProcess(action, context, { operation: OPERATION, access: (executable) => accessOf(action, executable) });
    return { ...(effects ? { effects } : {}), process: { ...process, processesPerEffect: 2 } };
  },
  setup(api) {
    api.hooks.preflight.tapPromise(KIND, commandPreflight(KIND));
  },
  dispatch: (context) => invoke(context),
});

/** What the effect asks policy for, as `describe` gives it before the run: starting the extension's process. */
const accessOf = (action: ExtensionProcessAction, executable: string) => processEffectAccess(action, executable);

const sha256 = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;

async function invoke(context: DispatchContext<ExtensionProcessAction, JsonValue>) {
  const { action, input } = context;
  const prepared = await prepareProcess(action, context, { args: action.args });
  const { executable, limits } = prepared;
  // The task row holds the input itself; the effect records its digest, taken with secret values redacted so that
  // a short secret cannot be recovered from it.
  const inputText = canonicalJson(input as JsonValue);
  const request = {
    operation: OPERATION,
    input: {
      ...prepared.recorded,
      protocolVersion: action.protocolVersion,
      capabilities: [...action.capabilities],
      inputSchema: sha256(canonicalJson(action.inputSchema as JsonValue)),
      outputSchema: sha256(canonicalJson(action.outputSchema as JsonValue)),
      input: { bytes: Buffer.byteLength(inputText), sha256: sha256(context.redact(inputText)) },
    },
    access: accessOf(action, executable),
  };
  const name = `extension ${context.actionName} (${basename(executable)})`;
  return context.effect(request, async (signal, effect) => {
    const launch = (mode: 'handshake' | 'invoke', stdin?: Buffer) =>
      prepared.spec({ name: `${effect.id}-${mode}`, args: [...action.args, `--agentctl-${mode}`], ...(stdin ? { stdin } : {}) });
    const reading = { name, timeoutSeconds: limits.timeoutSeconds, taskTimeoutSeconds: context.task.timeoutSeconds };
    handshake(await context.process.run(launch('handshake'), signal), context, reading);
    const requestDocument = JSON.stringify({ protocolVersion: PROTOCOL_VERSION, effectId: effect.id, input });
    const result = await context.process.run(launch('invoke', Buffer.from(requestDocument, 'utf8')), signal);
    return response(result, context, reading, effect.id);
  });
}

interface Reading {
  readonly name: string;
  readonly timeoutSeconds: number;
  readonly taskTimeoutSeconds: number;
}

/**
 * Checks the handshake. Every way it can go wrong is a definite failure: the handshake must not act, and the
 * invocation has not started. A cancellation keeps its own code, so the effect says why it stopped.
 */
function handshake(result: ProcessResult, context: DispatchContext<ExtensionProcessAction, JsonValue>, reading: Reading): void {
  const captured = redactedOutput(result, context.redact);
  const fail = (problem: string, details: JsonObject = {}) =>
    new EffectFailure('failed', 'AGENTCTL_E_EXTENSION_HANDSHAKE', `the handshake of ${reading.name} ${problem}; the extension was not invoked`, {
      details: { phase: 'handshake', ...details, ...captured },
    });
  const ended = processFailure(result, { ...reading, ...captured });
  if (ended?.code === 'AGENTCTL_E_CANCELLED') {
    throw new EffectFailure('failed', ended.code, `the handshake of ${reading.name} was cancelled; the extension was not invoked`, { details: { phase: 'handshake', ...captured } });
  }
  if (ended) throw fail(`did not complete: ${ended.message}`, { cause: ended.code });
  const parsed = oneObject(captured.stdout);
  if ('problem' in parsed) throw fail(parsed.problem);
  const difference = handshakeDifference(parsed.object, context.action, (text) => context.redact(text, { limit: QUOTE }));
  if (difference !== undefined) throw fail(`does not match the action: ${difference}`);
}

/**
 * Reads the invocation's response. The extension may have acted before anything went wrong, so every failure is
 * uncertain; a process that did not exit 0 keeps the code of how it ended, except a plain non-zero exit, which is a
 * bad response.
 */
function response(result: ProcessResult, context: DispatchContext<ExtensionProcessAction, JsonValue>, reading: Reading, effectId: string): JsonValue {
  const captured = redactedOutput(result, context.redact);
  const uncertain = (code: ErrorCode, message: string, details: JsonObject = {}, help?: string) =>
    new EffectFailure('uncertain', code, message, { details: { phase: 'invoke', ...details, ...captured }, ...(help ? { help } : {}) });
  const ended = processFailure(result, { ...reading, ...captured });
  if (ended) {
    if (ended.code === 'AGENTCTL_E_PROCESS_EXIT') throw uncertain('AGENTCTL_E_EXTENSION_RESPONSE', `the invocation of ${reading.name} ${exitWords(result)}${tail(captured.stderr)}`, { exitCode: exitCodeOf(result) });
    throw uncertain(ended.code as ErrorCode, ended.message, { cause: ended.code });
  }
  const parsed = oneObject(captured.stdout);
  if ('problem' in parsed) throw uncertain('AGENTCTL_E_EXTENSION_RESPONSE', `the invocation of ${reading.name} ${parsed.problem}`);
  const problem = responseProblem(parsed.object, effectId, (text) => context.redact(text, { limit: QUOTE }));
  if (problem !== undefined) throw uncertain('AGENTCTL_E_EXTENSION_RESPONSE', `the response of ${reading.name} does not answer this effect: ${problem}`);
  const output = parsed.object.output!;
  const problems = jsonSchemaProblems(context.action.outputSchema as JsonValue, output);
  if (problems.length > 0) {
    throw uncertain('AGENTCTL_E_EXTENSION_OUTPUT_INVALID', `the output of ${reading.name} does not match the action's outputSchema: ${problems.slice(0, 5).join('; ')}`, { problems: problems.slice(0, 20) });
  }
  return output;
}

const exitCodeOf = (result: ProcessResult) => (result.end === 'exited' ? result.exitCode : null);

const exitWords = (result: ProcessResult) =>
  result.end === 'exited' && result.exitCode === null ? `was killed by ${result.signal}` : `exited with status ${exitCodeOf(result)}`;
