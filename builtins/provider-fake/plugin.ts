// The `fake` provider: deterministic, in-process, no network and no credential. Every credential-free example and
// test uses it. It answers from its providerOptions: one tool call then a final text (the reference's behaviour),
// or a script of several turns.
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { definePlugin, EffectFailure, type ContentBlock, type JsonObject, type ModelProvider, type ProviderCallContext, type ModelRequest, type ModelResponse, type TextBlock, type ToolCallBlock } from '@agentctl/sdk';
import { fakeUsage } from './usage.js';
import { embedFake } from './embeddings.js';

const toolCall = z.strictObject({
  tool: z.string().min(1).optional().describe("The tool's name; default: the agent's first tool."),
  input: z.record(z.string(), z.json()),
});

const turn = z.union([
  z.strictObject({ text: z.string() }),
  z.strictObject({ toolCalls: z.array(toolCall).min(1) }),
  z.strictObject({ refusal: z.string() }),
]);

export const fakeOptionsSchema = z.strictObject({
  toolInput: z.record(z.string(), z.json()).optional().describe("First turn: call the agent's first tool once with this input."),
  finalText: z.string().optional().describe('The final answer (JSON text when the agent has structuredOutput).'),
  delayMs: z.number().int().min(0).max(600_000).optional().describe('Wait this long before answering (cancellable).'),
  failFirst: z.number().int().min(0).max(20).optional().describe("The task's first N requests fail as a retryable 503."),
  turns: z.array(turn).min(1).max(64).optional().describe('A script: the answer of each turn in order, beyond the reference.'),
  credentialSha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/, 'credentialSha256 is the hex SHA-256 of the expected credential')
    .optional()
    .describe("Beyond the reference: answer only when the provider entry's resolved credential has this SHA-256, as a real API checks its key."),
  usage: z
    .strictObject({ inputTokens: z.number().int().min(0), outputTokens: z.number().int().min(0) })
    .optional()
    .describe('Tokens each answer reports (default 1 and 1), beyond the reference: for budget tests.'),
});

type FakeOptions = z.output<typeof fakeOptionsSchema>;

/**
 * Parsed options, remembered. An agent sends the same options every turn, and parsing a long `turns` script costs far
 * more than answering: each turn would pay for the whole script again. A frozen options object cannot change, so it
 * is its own key; any other is keyed by its JSON text (a caller that changed the object gets it parsed anew).
 */
const parsedFrozen = new WeakMap<object, FakeOptions>();
let lastOptions: { text: string; options: FakeOptions } | undefined;

function optionsOf(request: ModelRequest): FakeOptions {
  const raw = request.options;
  const frozen = Object.isFrozen(raw) ? parsedFrozen.get(raw) : undefined;
  if (frozen) return frozen;
  const text = JSON.stringify(raw);
  if (lastOptions?.text !== text) lastOptions = { text, options: fakeOptionsSchema.parse(raw) };
  if (Object.isFrozen(raw) && isDeeplyFrozen(raw)) parsedFrozen.set(raw, lastOptions.options);
  return lastOptions.options;
}

/** Whether nothing inside `value` can change any more. */
function isDeeplyFrozen(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  return Object.isFrozen(value) && Object.values(value).every(isDeeplyFrozen);
}

/** The answer of turn `index` (0-based): the script's, else the reference's tool-then-text behaviour. */
function answer(request: ModelRequest, options: FakeOptions, index: number): (TextBlock | ToolCallBlock)[] | { refusal: string } {
  const firstTool = request.tools[0]?.name;
  if (options.turns) {
    const scripted = options.turns[index];
    if (!scripted) throw new EffectFailure('failed', 'AGENTCTL_E_PROVIDER_REJECTED', `fake provider: the script has ${options.turns.length} turns and turn ${index + 1} was requested`);
    if ('refusal' in scripted) return { refusal: scripted.refusal };
    if ('text' in scripted) return [{ type: 'text', text: scripted.text }];
    return scripted.toolCalls.map((call, position) => {
      const name = call.tool ?? firstTool;
      if (name === undefined) throw new EffectFailure('failed', 'AGENTCTL_E_PROVIDER_REJECTED', 'fake provider: the script calls a tool and the agent has none');
      // A copy: the parsed script is kept for the next call, and a response is the caller's to keep.
      return { type: 'tool_call', id: `call_${index + 1}_${position + 1}`, name, input: structuredClone(call.input) };
    });
  }
  // The reference's rule: one call of the first tool, until a tool result has been seen.
  const sawResult = request.messages.some((message) => message.content.some((block) => block.type === 'tool_result'));
  if (options.toolInput && !sawResult && firstTool !== undefined) return [{ type: 'tool_call', id: 'fake-call-1', name: firstTool, input: structuredClone(options.toolInput) }];
  return [{ type: 'text', text: options.finalText ?? defaultText(request) }];
}

/** Without finalText: `fake: ` and the first text of the latest user message that has one. */
function defaultText(request: ModelRequest): string {
  for (const message of [...request.messages].reverse()) {
    if (message.role !== 'user') continue;
    const text = message.content.find((block) => block.type === 'text');
    if (text?.type === 'text') return `fake: ${text.text}`;
  }
  return 'fake: ';
}

/** The credential check of a real API, offline: a missing or different credential is a definite 401. */
function checkCredential(expected: unknown, credential: string | undefined): void {
  if (typeof expected !== 'string') return;
  if (credential === undefined || createHash('sha256').update(credential).digest('hex') !== expected) {
    throw new EffectFailure('failed', 'AGENTCTL_E_PROVIDER_REJECTED', `fake provider answered 401: the credential ${credential === undefined ? 'is missing' : 'does not match credentialSha256'}`);
  }
}

/** With `stream: true`, the answer's text arrives as deltas first: each word with the blank after it, numbered from 1. */
async function streamText(blocks: readonly ContentBlock[], progress: NonNullable<ProviderCallContext['progress']>): Promise<void> {
  let providerSequence = 0;
  for (const block of blocks) {
    if (block.type !== 'text') continue;
    for (const delta of block.text.match(/\S+\s*|\s+/g) ?? []) await progress({ type: 'delta', payload: { delta }, providerSequence: ++providerSequence });
  }
}

export const fakeProvider: ModelProvider = {
  kind: 'fake',
  description: 'Deterministic in-process provider: no network, no credential; deterministic lexical embeddings.',
  capabilities: { tools: true, structuredOutput: true, reasoning: false, streaming: true },
  optionsSchema: fakeOptionsSchema as unknown as z.ZodType<JsonObject>,
  async call(request, context): Promise<ModelResponse> {
    checkCredential(request.options.credentialSha256, context.credential);
    const options = optionsOf(request);
    if (options.delayMs) {
      try {
        await sleep(options.delayMs, undefined, { signal: context.signal });
      } catch {
        throw new EffectFailure('uncertain', 'AGENTCTL_E_PROVIDER_UNCERTAIN', `fake provider: the call was interrupted after ${context.timeoutMs} ms or by cancellation`);
      }
    }
    if (options.failFirst !== undefined && context.sequence <= options.failFirst) {
      throw new EffectFailure('failed', 'AGENTCTL_E_PROVIDER_UNAVAILABLE', `fake provider answered 503: scripted transient failure (request ${context.sequence} of the first ${options.failFirst} that fail)`);
    }
    // The turn being answered: how many answers the conversation already holds.
    let index = 0;
    for (const message of request.messages) if (message.role === 'assistant') index += 1;
    const result = answer(request, options, index);
    const usage = fakeUsage(options.usage);
    const responseId = `fake-response-${context.sequence}`;
    if ('refusal' in result) return { content: [{ type: 'text', text: result.refusal }], finishReason: 'refusal', usage, responseId, model: request.model };
    const calls = result.some((block) => block.type === 'tool_call');
    if (context.progress) await streamText(result, context.progress);
    // Reported tokens beyond maxOutputTokens mean the answer was cut: the reference's max_tokens ending.
    const truncated = !calls && usage.outputTokens > request.maxOutputTokens;
    return { content: result, finishReason: calls ? 'tool_calls' : truncated ? 'max_tokens' : 'complete', usage, responseId, model: request.model };
  },
  embed: embedFake,
  embeddingUrls: () => [],
};

export default definePlugin({
  name: 'builtin.provider.fake',
  version: '0.1.0',
  hostRange: '^0.1.0',
  description: 'The fake model provider: scripted, deterministic, offline.',
  setup(api) {
    api.registerProvider(fakeProvider);
  },
});
