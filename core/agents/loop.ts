// The agent loop: a bounded conversation where every model turn and every tool call is a recorded effect. The loop
// is deterministic given the recorded responses, so a resumed task rebuilds its state from the ledger: confirmed
// turns and calls are read back by effect id, never sent again.
import { setTimeout as sleep } from 'node:timers/promises';
import {
  AgentctlError,
  EffectFailure,
  errorMessage,
  isEffectFailure,
  JsonDepthError,
  jsonSchemaProblems,
  parseJsonAnswer,
  type ContentBlock,
  type JsonValue,
  type ModelMessage,
  type ModelRequest,
  type ModelResponse,
  type ModelUsage,
  type NetworkClient,
  type ProviderProgress,
  type ToolCallBlock,
} from '@agentctl/sdk';
import { priceOf } from './budget.js';
import { MODEL_PROFILE } from '../compiler/agent-action.js';
import type { AgentLoop } from './agent-loop.js';
import { CanonicalMemo } from './canonical.js';
import { callTool } from './tools.js';
import { boundedSignal } from '../runner/deadline.js';

const MAX_INSTRUCTIONS_BYTES = 1024 * 1024;
/** A refusal's text is quoted in the error up to this many characters (redacted before it is cut). */
const REFUSAL_QUOTE = 200;
/** The tool identity of a model turn: governed by spec.policy.providers, not by toolsAllow. */
export const MODEL_TOOL = 'model.request';

const ZERO: ModelUsage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };

/** Usage summed over an agent task's turns: the `usage` of its `{text, usage}` output. */
interface UsageTotal {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  reasoningTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export async function runAgent(loop: AgentLoop): Promise<JsonValue> {
  const { agent, tools } = loop.fields;
  const instructions = await readInstructions(loop);
  // The conversation is the loop's own frozen copy: every request holds all of it, and its canonical text (for the
  // effect digest and the budget's bound) is then computed once per message instead of once per message per turn.
  const memo = new CanonicalMemo();
  const messages: ModelMessage[] = [memo.own({ role: 'user', content: [{ type: 'text', text: loop.prompt }] })];
  const modelTools = memo.own(tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema })));
  const structuredOutput = memo.own(agent.structuredOutput);
  const reasoning = memo.own(agent.reasoning);
  const options = memo.own(agent.providerOptions);
  const usage: UsageTotal = { inputTokens: 0, outputTokens: 0, totalTokens: 0, reasoningTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  let sequence = 0;
  let toolCalls = 0;
  for (let turn = 1; ; turn += 1) {
    if (turn > agent.maxTurns) {
      throw new AgentctlError('AGENTCTL_E_AGENT_TURN_LIMIT', `agent ${agent.name}: maximum turn count exceeded (maxTurns ${agent.maxTurns}) without a final answer`);
    }
    const request: ModelRequest = memo.seal({
      model: agent.model,
      ...(instructions === undefined ? {} : { instructions }),
      messages: memo.list(messages),
      tools: modelTools,
      maxOutputTokens: agent.maxOutputTokens,
      ...(structuredOutput ? { structuredOutput } : {}),
      ...(reasoning ? { reasoning } : {}),
      options,
    });
    checkUsageLimit(loop, usage);
    const response = await requestWithRetries(loop, request, turn, () => (sequence += 1), memo);
    addUsage(usage, response.usage);
    const calls = response.content.filter((block): block is ToolCallBlock => block.type === 'tool_call');
    if (calls.length === 0) return finalAnswer(loop, response, usage);
    // A provider's own items (reasoning) go back with the answer they came with, when it asked for them.
    messages.push(memo.own({ role: 'assistant', content: response.content, ...(response.providerItems ? { providerItems: response.providerItems } : {}) }));
    const results: ContentBlock[] = [];
    for (const call of calls) {
      toolCalls += 1;
      if (toolCalls > agent.maxToolCalls) {
        throw new AgentctlError('AGENTCTL_E_AGENT_TOOL_CALL_LIMIT', `agent ${agent.name}: maximum tool-call count exceeded (maxToolCalls ${agent.maxToolCalls}); the model asked for call ${toolCalls} (${call.name})`);
      }
      const output = await callTool(loop, call, toolCalls);
      results.push({ type: 'tool_result', callId: call.id, name: call.name, output });
    }
    messages.push(memo.own({ role: 'tool', content: results }));
  }
}

/** `instructionsFile` is read when the task runs, as a recorded observe effect: its digest is in the ledger. */
async function readInstructions(loop: AgentLoop): Promise<string | undefined> {
  const { agent } = loop.fields;
  if (agent.instructionsFile === undefined) return agent.instructions;
  const path = agent.instructionsFile;
  const read = await loop.effect(
    { operation: 'agent.instructions.read', input: { agent: agent.name, path }, access: { tool: 'filesystem.read', reads: [path] }, profile: { effectClass: 'observe', risk: 'low', idempotency: 'idempotent' } },
    async () => {
      const bytes = await loop.context.files.read(path, { maxBytes: MAX_INSTRUCTIONS_BYTES });
      return { path, content: bytes.toString('utf8'), bytes: bytes.length };
    },
  );
  return (read as { content: string }).content;
}

/** One turn: each attempt is its own effect; only a definite retryable answer is tried again. */
async function requestWithRetries(loop: AgentLoop, request: ModelRequest, turn: number, next: () => number, texts: CanonicalMemo): Promise<ModelResponse> {
  const { agent, provider } = loop.fields;
  for (let attempt = 1; ; attempt += 1) {
    const sequence = next();
    try {
      return await modelRequest(loop, request, turn, attempt, sequence, texts);
    } catch (error) {
      const retryable = isEffectFailure(error) && error.outcome === 'failed' && error.code === 'AGENTCTL_E_PROVIDER_UNAVAILABLE';
      if (!retryable || attempt >= agent.retry.maxAttempts) {
        if (retryable) error.message = `${error.message} (provider ${provider.name}, ${attempt} of ${agent.retry.maxAttempts} attempts)`;
        throw error;
      }
      try {
        await sleep(agent.retry.backoffMs, undefined, { signal: loop.context.signal });
      } catch {
        throw new AgentctlError('AGENTCTL_E_CANCELLED', `agent ${agent.name} was cancelled while waiting to retry`);
      }
    }
  }
}

/** The request is recorded whole before it is sent; the response whole after. Replay reads both from the ledger. */
async function modelRequest(loop: AgentLoop, request: ModelRequest, turn: number, attempt: number, sequence: number, texts: CanonicalMemo): Promise<ModelResponse> {
  const { agent, provider } = loop.fields;
  loop.budget?.expectModelRequest(provider.kind, request, turn, attempt, texts.text);
  const recorded = await loop.effect(
    {
      operation: 'model.request',
      input: { agent: agent.name, provider: provider.name, kind: provider.kind, turn, attempt, sequence, request: request as unknown as JsonValue },
      access: { tool: MODEL_TOOL },
      profile: MODEL_PROFILE,
    },
    async (signal, effect) => {
      const kind = loop.host.provider(provider.kind);
      if (!kind) throw new EffectFailure('failed', 'AGENTCTL_E_PROVIDER_UNKNOWN', `no registered plugin provides provider kind ${provider.kind}`);
      const timeoutMs = agent.timeoutSeconds * 1000;
      const deadline = boundedSignal(signal, timeoutMs, 'The operation was aborted due to timeout');
      const network = loop.network ?? unavailableNetwork();
      const secrets = loop.context.secrets;
      const headers = Object.fromEntries(Object.entries(provider.headers).map(([name, reference]) => [name, secrets.value(reference)]));
      const call = kind.call(request, {
        provider: { name: provider.name, kind: provider.kind, ...(provider.endpoint ? { endpoint: provider.endpoint } : {}), ...(provider.apiVersion ? { apiVersion: provider.apiVersion } : {}) },
        ...(provider.credential ? { credential: secrets.value(provider.credential) } : {}),
        headers,
        network,
        // Read only by providers that wait on it: the controller behind it is made on first read.
        get signal() {
          return deadline.signal;
        },
        timeoutMs,
        effectId: effect.id,
        sequence,
        ...(agent.stream && loop.progress ? { progress: streamed(loop, effect.id) } : {}),
      });
      let response: ModelResponse;
      try {
        response = await call;
      } catch (thrown) {
        const error = deadline.expired() && !signal.aborted ? timedOut(thrown, provider.name, agent.timeoutSeconds) : thrown;
        // A definite failure consumed one request and no tokens; one in doubt keeps its worst case.
        if (isEffectFailure(error) && error.outcome === 'failed') loop.budget?.used(effect.id, provider.kind, agent.model, ZERO, turn, attempt);
        throw error;
      } finally {
        deadline.dispose();
      }
      loop.budget?.used(effect.id, provider.kind, agent.model, response.usage, turn, attempt);
      return { response: response as unknown as JsonValue };
    },
    undefined,
    'policy',
    texts,
  );
  return (recorded as unknown as { response: ModelResponse }).response;
}

/**
 * A call the agent's `timeoutSeconds` interrupted: uncertain once anything may have been sent (the provider may have
 * processed it); a definite failure only when the provider said nothing left the machine.
 */
function timedOut(error: unknown, provider: string, seconds: number): EffectFailure {
  if (isEffectFailure(error) && error.outcome === 'failed') {
    return new EffectFailure('failed', 'AGENTCTL_E_NETWORK_TIMEOUT', `provider ${provider} was not reached within the agent's timeoutSeconds (${seconds}s); nothing was sent`);
  }
  return new EffectFailure('uncertain', 'AGENTCTL_E_PROVIDER_UNCERTAIN', `provider ${provider} did not answer within the agent's timeoutSeconds (${seconds}s); the request may have been processed`);
}

/** The last turn's text, or its validated structured object. */
function finalAnswer(loop: AgentLoop, response: ModelResponse, usage: UsageTotal): JsonValue {
  const { agent } = loop.fields;
  const text = response.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
  if (response.finishReason === 'refusal') throw new AgentctlError('AGENTCTL_E_AGENT_OUTPUT_INVALID', `agent ${agent.name}: the model refused: ${loop.context.redact(text, { limit: REFUSAL_QUOTE })}`);
  if (response.finishReason === 'max_tokens') throw new AgentctlError('AGENTCTL_E_AGENT_OUTPUT_INVALID', `agent ${agent.name}: the model stopped at maxOutputTokens (${agent.maxOutputTokens}) before finishing its answer`);
  if (!agent.structuredOutput) {
    const key = `${loop.fields.provider.kind}/${agent.model}`;
    const costMicrousd = loop.pricing?.models[key] ? priceOf(loop.pricing, key, usage) : null;
    return { text, usage: { ...usage, costMicrousd } };
  }
  let value: JsonValue;
  try {
    value = parseJsonAnswer(text) as JsonValue;
  } catch (error) {
    if (error instanceof JsonDepthError) throw new AgentctlError('AGENTCTL_E_AGENT_OUTPUT_INVALID', `agent ${agent.name}: the final answer is JSON nested more than ${error.limit} levels deep; structuredOutput allows at most ${error.limit}`);
    throw new AgentctlError('AGENTCTL_E_AGENT_OUTPUT_INVALID', `agent ${agent.name}: the final answer is not JSON (${errorMessage(error)}) and structuredOutput needs it`);
  }
  const problems = jsonSchemaProblems(agent.structuredOutput, value);
  if (problems.length > 0) throw new AgentctlError('AGENTCTL_E_AGENT_OUTPUT_INVALID', `agent ${agent.name}: the final answer does not match structuredOutput: ${problems.join('; ')}`);
  return value;
}

function addUsage(total: UsageTotal, usage: ModelUsage): void {
  total.inputTokens += usage.inputTokens;
  total.outputTokens += usage.outputTokens;
  total.totalTokens += usage.totalTokens;
  total.reasoningTokens += usage.reasoningTokens ?? 0;
  total.cacheReadTokens += usage.cacheReadTokens ?? 0;
  total.cacheWriteTokens += usage.cacheWriteTokens ?? 0;
}

/** The agent's own `usageLimit`: no request starts once its tokens so far have reached a limit. */
function checkUsageLimit(loop: AgentLoop, usage: UsageTotal): void {
  const { agent } = loop.fields;
  const limit = agent.usageLimit;
  if (!limit) return;
  const over = (limit.maxInputTokens !== undefined && usage.inputTokens >= limit.maxInputTokens) || (limit.maxOutputTokens !== undefined && usage.outputTokens >= limit.maxOutputTokens);
  if (over) {
    throw new AgentctlError('AGENTCTL_E_BUDGET_EXCEEDED', `agent ${agent.name} reached its usageLimit (${usage.inputTokens} input and ${usage.outputTokens} output tokens used); no further request is sent`);
  }
}

function unavailableNetwork(): NetworkClient {
  const refuse = () => Promise.reject(new AgentctlError('AGENTCTL_E_NETWORK_UNAVAILABLE', 'no plugin provides the network client; this provider cannot be reached'));
  return { check: refuse, request: refuse };
}

/** At most this many streamed pieces are recorded per turn, each cut to this many characters (the reference's bounds). */
const MAX_STREAM_EVENTS = 256;
const MAX_STREAM_TEXT = 4096;

/** A turn's progress sink: each piece becomes a `stream.TYPE` event of the task (redacted by the runner), in order. */
function streamed(loop: AgentLoop, effectId: string): (event: ProviderProgress) => Promise<void> {
  let count = 0;
  return async (event) => {
    if (++count > MAX_STREAM_EVENTS) return;
    const payload: Record<string, JsonValue> = {};
    for (const [key, value] of Object.entries(event.payload)) payload[key] = typeof value === 'string' && value.length > MAX_STREAM_TEXT ? value.slice(0, MAX_STREAM_TEXT) : value;
    await loop.progress!(`stream.${event.type}`, { ...payload, ...(event.providerSequence === undefined ? {} : { providerSequence: event.providerSequence }) }, effectId);
  };
}
