// What an effect's span says about it: agentctl's own attributes, and the OpenTelemetry GenAI conventions for model
// turns and tool calls. Values come from the interceptor input (recorded, so redacted) and, for a model turn, only the
// numbers and the finish reason of its response: never a whole request or response.
import type { EffectInterceptorInput, JsonValue } from '@agentctl/sdk';
import type { Attributes } from '@opentelemetry/api';

export const MODEL_TURN = 'model.request';
export const TOOL_CALL = 'tool.call';

/** The longest string an attribute carries; longer texts (messages, reasons) are cut. */
export const MAX_TEXT = 512;

/** The GenAI `gen_ai.provider.name` of an agentctl provider kind (the kind itself when it has no well-known name). */
const PROVIDER_NAMES: Readonly<Record<string, string>> = { openai: 'openai', azure_openai: 'azure.ai.openai', anthropic: 'anthropic', google: 'gcp.gemini', fake: 'agentctl.fake' };

/** An effect outcome and what it means for the world: applied, not applied, or in doubt. */
export type Outcome = 'succeeded' | 'failed' | 'uncertain';
export const DISPOSITION: Readonly<Record<Outcome, string>> = { succeeded: 'applied', failed: 'not_applied', uncertain: 'in_doubt' };

export const cut = (text: string, limit = MAX_TEXT): string => (text.length > limit ? `${text.slice(0, limit - 1)}…` : text);

const field = (value: JsonValue | undefined, key: string): JsonValue | undefined => (value !== null && typeof value === 'object' && !Array.isArray(value) ? value[key] : undefined);
const text = (value: JsonValue | undefined): string | undefined => (typeof value === 'string' && value !== '' ? cut(value, 256) : undefined);
const count = (value: JsonValue | undefined): number | undefined => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined);

/** The span name: `chat MODEL` for a model turn, `execute_tool TOOL` for a tool call, the operation otherwise. */
export function effectSpanName(input: EffectInterceptorInput): string {
  if (input.operation === MODEL_TURN) {
    const model = text(field(field(input.input, 'request'), 'model'));
    return model ? `chat ${model}` : 'chat';
  }
  if (input.operation === TOOL_CALL) {
    const tool = text(field(input.input, 'tool'));
    return tool ? `execute_tool ${tool}` : 'execute_tool';
  }
  return input.operation;
}

/** The attributes an effect's span starts with. */
export function effectAttributes(input: EffectInterceptorInput): Attributes {
  const { profile } = input;
  const attributes: Attributes = {
    'agentctl.run.id': input.runId,
    'agentctl.task.id': input.taskId,
    'agentctl.task.attempt': input.attempt,
    'agentctl.action.kind': input.kind,
    'agentctl.effect.id': input.effectId,
    'agentctl.effect.operation': input.operation,
    ...(profile.effectClass ? { 'agentctl.effect.class': profile.effectClass } : {}),
    ...(profile.risk ? { 'agentctl.effect.risk': profile.risk } : {}),
    ...(profile.idempotency ? { 'agentctl.effect.idempotency': profile.idempotency } : {}),
  };
  if (input.operation === MODEL_TURN) Object.assign(attributes, modelAttributes(input.input));
  if (input.operation === TOOL_CALL) Object.assign(attributes, toolAttributes(input.input));
  return attributes;
}

function modelAttributes(recorded: JsonValue): Attributes {
  const request = field(recorded, 'request');
  const kind = text(field(recorded, 'kind'));
  const provider = kind ? (PROVIDER_NAMES[kind] ?? kind) : undefined;
  const model = text(field(request, 'model'));
  const maxTokens = count(field(request, 'maxOutputTokens'));
  const agent = text(field(recorded, 'agent'));
  return {
    'gen_ai.operation.name': 'chat',
    ...(provider ? { 'gen_ai.provider.name': provider, 'gen_ai.system': provider } : {}),
    ...(model ? { 'gen_ai.request.model': model } : {}),
    ...(maxTokens === undefined ? {} : { 'gen_ai.request.max_tokens': maxTokens }),
    ...(agent ? { 'gen_ai.agent.name': agent } : {}),
    ...(count(field(recorded, 'turn')) === undefined ? {} : { 'agentctl.agent.turn': count(field(recorded, 'turn'))! }),
  };
}

function toolAttributes(recorded: JsonValue): Attributes {
  const tool = text(field(recorded, 'tool'));
  const callId = text(field(recorded, 'callId'));
  const kind = text(field(recorded, 'kind'));
  return {
    'gen_ai.operation.name': 'execute_tool',
    ...(tool ? { 'gen_ai.tool.name': tool } : {}),
    ...(callId ? { 'gen_ai.tool.call.id': callId } : {}),
    ...(kind ? { 'agentctl.tool.kind': kind } : {}),
  };
}

/** agentctl's provider-neutral finish reasons as the GenAI conventions name them. */
const FINISH_REASONS: Readonly<Record<string, string>> = { complete: 'stop', tool_calls: 'tool_calls', max_tokens: 'length', refusal: 'content_filter' };

/** What a model turn's response adds: token counts and the finish reason (an enumerated word), nothing else. */
export function modelResponseAttributes(recorded: JsonValue): Attributes {
  // A model turn's effect records `{ response }`: the provider-neutral answer.
  const response = field(recorded, 'response') ?? recorded;
  const usage = field(response, 'usage');
  const input = count(field(usage, 'inputTokens'));
  const output = count(field(usage, 'outputTokens'));
  const reason = field(response, 'finishReason');
  return {
    ...(input === undefined ? {} : { 'gen_ai.usage.input_tokens': input }),
    ...(output === undefined ? {} : { 'gen_ai.usage.output_tokens': output }),
    ...(typeof reason === 'string' && FINISH_REASONS[reason] ? { 'gen_ai.response.finish_reasons': [FINISH_REASONS[reason]] } : {}),
  };
}
