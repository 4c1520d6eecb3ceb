// builtin.a2a: the `spec.a2aPeers` section and the `a2a.delegate` action kind. Each task is one recorded effect: one
// message sent to a peer with SendMessage, never twice. The remote task id it answers with is committed before the
// task is observed, so a process lost while observing is followed by one that observes the same task (resume) instead
// of sending again. The output is the task as it settled (or the peer's message, when it answered with one).
import { createHash } from 'node:crypto';
import {
  AgentctlError,
  definePlugin,
  EffectFailure,
  isEffectFailure,
  isJsonObject,
  type ActionKind,
  type DispatchContext,
  type EffectAccess,
  type JsonObject,
  type JsonValue,
  type PerformedEffect,
  type SecretReference,
} from '@agentctl/sdk';
import { keepArtifacts } from './artifacts.js';
import { PeerConnection, type SelectedInterface } from './connection.js';
import { cancelTask, taskOf, waitForTask } from './observe.js';
import { a2aDelegateActionSchema, a2aDelegateInputSchema, a2aPeersSection, inputSchemaFor, type A2aDelegateAction, type A2aDelegateInput, type A2aPeer } from './schema.js';

const KIND = 'a2a.delegate';
/** Policy sees every delegation as this tool (toolsAllow / toolsDeny). */
const ACCESS: EffectAccess = { tool: 'a2a.delegate' };

export default definePlugin({
  name: 'builtin.a2a',
  version: '0.1.0',
  hostRange: '^0.1.0',
  description: 'A2A peers (spec.a2aPeers) and the a2a.delegate action kind: one message to a peer per task, its remote task observed to the end.',
  setup(api) {
    api.registerSpecSection(a2aPeersSection);
    api.registerActionKind(a2aDelegateKind());
  },
});

function a2aDelegateKind(): ActionKind<typeof a2aDelegateActionSchema, typeof a2aDelegateInputSchema> {
  return {
    name: KIND,
    description: 'Delegates one message to an A2A peer declared in spec.a2aPeers (JSON-RPC, through the network policy) and waits for its remote task; outputs the task.',
    actionSchema: a2aDelegateActionSchema,
    inputSchema: a2aDelegateInputSchema,
    // As the reference classifies a delegation. Its idempotency is unknown: the peer is not known to recognise a
    // repeat, so agentctl sends it at most once.
    effect: { effectClass: 'remote_agent', risk: 'high', idempotency: 'unknown' },
    inputSchemaFor: (_action, context) => inputSchemaFor(context.sections),
    usesNetwork: true,
    sections: [a2aPeersSection.key],
    describe: () => ({ effects: [{ operation: KIND, access: ACCESS }] }),
    dispatch: (context) => delegate(context),
  };
}

async function delegate(context: DispatchContext<A2aDelegateAction, A2aDelegateInput>): Promise<JsonValue> {
  const { input } = context;
  const peer = a2aPeersSection.read(context.sections)[input.peer];
  if (peer === undefined) throw new AgentctlError('AGENTCTL_E_TASK_INPUT_INVALID', `A2A peer "${input.peer}" is not declared in spec.a2aPeers`);
  const network = context.network;
  if (network === undefined) throw new AgentctlError('AGENTCTL_E_NETWORK_UNAVAILABLE', `no plugin provides the network client, and task ${context.task.id} delegates to A2A peer ${input.peer}`);
  // Header values go on the wire only; the effect records each by its reference. Not by a digest of its value: the
  // recorded input is the effect's identity, which must not change when the credential is rotated (a 401 refresh, a
  // resume with a new token), or a resumed task would no longer find the message it sent.
  const references = Object.entries(peer.headers) as [string, SecretReference][];
  const recorded: JsonObject = {};
  for (const [name, reference] of references) recorded[name] = { secret: reference as JsonObject };
  const headers = {
    values: () => Object.fromEntries(references.map(([name, reference]) => [name, context.secrets.value(reference)])),
    refresh: async () => {
      for (const [, reference] of references) await context.secrets.refresh(reference);
    },
  };
  const request = {
    operation: KIND,
    input: {
      peer: input.peer,
      cardUrl: peer.cardUrl,
      protocolVersion: peer.protocolVersion,
      messageId: input.messageId,
      message: input.message,
      ...(input.contextId === undefined ? {} : { contextId: input.contextId }),
      headers: recorded,
    },
    access: ACCESS,
  };
  return context.effect(request, async (signal, effect) => {
    const endpoint = { name: input.peer, cardUrl: peer.cardUrl, protocolVersion: peer.protocolVersion, timeoutMs: peer.timeoutSeconds * 1000 };
    const connection = new PeerConnection(network, endpoint, headers, signal, (text, options) => context.redact(text, options));
    const continued = effect.continued;
    const selected = await submitted(continued !== undefined, () => connection.discover());
    const call = callRecorder(effect, input, peer, selected);
    const answered = continued ? continuedTask(continued.state, continued.remoteId) : await send(connection, call, input);
    if (!('id' in answered)) return answered.message;
    return submitted(true, async () => {
      const task = await waitForTask(connection, input.peer, answered, peer, signal, () => cancelTask(connection, String(answered.id)));
      await keepArtifacts(task, connection, context.files, input.peer);
      call({ status: 'succeeded', remoteTaskId: String(task.id), task });
      return task;
    });
  });
}

/**
 * Once the peer holds a task for the message, only the task itself can end the effect `failed` (it failed remotely):
 * any other failure (the card, an artifact, the observation) leaves it `uncertain`, so it is never retried by sending
 * the message again, and resume observes the task once more.
 */
async function submitted<T>(sent: boolean, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    if (!sent || !isEffectFailure(error) || error.outcome !== 'failed' || error.code === 'AGENTCTL_E_A2A_TASK_FAILED') throw error;
    throw new EffectFailure('uncertain', error.code, `${error.message}; the peer holds the task, so the message is not sent again`, { details: error.details, cause: error, diagnostics: error.diagnostics.map((item) => ({ ...item, message: `${item.message}; the peer holds the task, so the message is not sent again` })) });
  }
}

type CallState = { status: string; remoteTaskId?: string; task?: JsonObject };

/** Commits the call's state: its identity is the message id, its remote id the task id once the peer names one. */
function callRecorder(effect: PerformedEffect, input: A2aDelegateInput, peer: A2aPeer, selected: SelectedInterface) {
  const session = { endpoint: input.peer, state: { cardUrl: peer.cardUrl, cardName: selected.cardName, interfaceUrl: selected.url, protocolVersion: selected.protocolVersion, streaming: selected.streaming } };
  const messageDigest = `sha256:${createHash('sha256').update(input.message, 'utf8').digest('hex')}`;
  return (state: CallState) =>
    effect.recordCall({
      protocol: 'a2a',
      operation: 'SendMessage',
      callIdentity: input.messageId,
      ...(state.remoteTaskId === undefined ? {} : { remoteId: state.remoteTaskId }),
      state: { peer: input.peer, messageId: input.messageId, messageDigest, ...state } as JsonObject,
      session,
    });
}

/** Sends the message once. Its task id is committed before the task is observed; a message answer ends the call. */
async function send(connection: PeerConnection, call: ReturnType<typeof callRecorder>, input: A2aDelegateInput): Promise<JsonObject | { message: JsonObject }> {
  // Committed before sending: an effect whose call never got a task id is not continued, whatever happened remotely.
  call({ status: 'submitting' });
  const message: JsonObject = { messageId: input.messageId, role: 'ROLE_USER', parts: [{ text: input.message }], ...(input.contextId === undefined ? {} : { contextId: input.contextId }) };
  const result = await connection.call('SendMessage', { message }, 'send');
  const task = taskOf(result);
  if (task !== undefined) {
    call({ status: 'observing', remoteTaskId: String(task.id), task });
    return task;
  }
  if (isJsonObject(result.message)) {
    call({ status: 'succeeded' });
    return { message: result.message };
  }
  throw new EffectFailure('uncertain', 'AGENTCTL_E_A2A_UNCERTAIN', `A2A peer ${input.peer} answered SendMessage with neither a task nor a message; the peer may have taken the message, so it is not sent again`);
}

/** The task as the lost process last committed it: observed again from there. */
function continuedTask(state: JsonValue, remoteId: string): JsonObject {
  const recorded = isJsonObject(state) && isJsonObject(state.task) ? state.task : undefined;
  return recorded !== undefined && recorded.id === remoteId ? recorded : { id: remoteId, status: { state: 'TASK_STATE_WORKING' } };
}
