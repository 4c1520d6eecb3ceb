// Model providers: one provider-neutral request and response, and the plugin that maps them to a vendor's API.
// The host runs the agent loop, records every request before it is sent and every response after, and enforces
// limits and budgets; a provider only translates and sends one request.
import type { z } from 'zod';
import type { JsonObject, JsonValue } from './json.js';
import type { NetworkClient } from './network.js';

/** Text the model wrote. */
export interface TextBlock {
  readonly type: 'text';
  readonly text: string;
}

/** A tool the model asks to call. `id` correlates the result; `input` is the parsed JSON arguments. */
export interface ToolCallBlock {
  readonly type: 'tool_call';
  readonly id: string;
  readonly name: string;
  readonly input: JsonValue;
}

/** What a tool call returned (or why it was refused), sent back to the model. */
export interface ToolResultBlock {
  readonly type: 'tool_result';
  readonly callId: string;
  readonly name: string;
  readonly output: JsonValue;
  readonly isError?: boolean;
}

/** One block of a message: text, a tool call, or a tool result. */
export type ContentBlock = TextBlock | ToolCallBlock | ToolResultBlock;

/** One message of the conversation. The host writes `user` and `tool` messages; `assistant` ones are responses. */
export interface ModelMessage {
  readonly role: 'user' | 'assistant' | 'tool';
  readonly content: readonly ContentBlock[];
  /** On an assistant message: the `providerItems` of the response it came from, sent back by the provider that made them. */
  readonly providerItems?: readonly JsonObject[];
}

/** A tool as the model sees it: a strict contract (`additionalProperties: false`). */
export interface ModelTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonObject;
}

/** Reasoning settings of an agent, for providers that declare the capability. */
export interface ReasoningSettings {
  readonly effort: 'none' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';
  readonly mode?: string;
}

/** One model turn, provider-neutral. It is recorded whole (redacted) before it is sent. */
export interface ModelRequest {
  readonly model: string;
  readonly instructions?: string;
  readonly messages: readonly ModelMessage[];
  readonly tools: readonly ModelTool[];
  readonly maxOutputTokens: number;
  /** A JSON Schema the final answer must match; the provider asks for it natively. */
  readonly structuredOutput?: JsonObject;
  readonly reasoning?: ReasoningSettings;
  /** The agent's `providerOptions`, after the provider's `optionsSchema` parsed them. */
  readonly options: JsonObject;
  /** The previous response's id, for providers that continue a conversation server-side. */
  readonly previousResponseId?: string;
}

/** Token counts as the provider reported them. */
export interface ModelUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly totalTokens: number;
  readonly reasoningTokens?: number;
  readonly cacheReadTokens?: number;
  readonly cacheWriteTokens?: number;
}

/** Why the model stopped. */
export type FinishReason = 'complete' | 'tool_calls' | 'max_tokens' | 'refusal';

/** One model turn's answer, provider-neutral. It is recorded whole (redacted) after it arrives. */
export interface ModelResponse {
  readonly content: readonly (TextBlock | ToolCallBlock)[];
  readonly finishReason: FinishReason;
  readonly usage: ModelUsage;
  /** The provider's id of this response, when it has one. */
  readonly responseId?: string;
  /** The model that answered, when the provider says. */
  readonly model?: string;
  /**
   * Items of the provider's own that it wants back in later turns of the conversation (OpenAI reasoning items with
   * `reasoningContext: all_turns`). Recorded with the response; the host returns them on the assistant message.
   */
  readonly providerItems?: readonly JsonObject[];
}

/** What a provider kind can do; the compiler refuses an agent that asks for more. */
export interface ProviderCapabilities {
  readonly tools: boolean;
  readonly structuredOutput: boolean;
  readonly reasoning: boolean;
  /** Whether an agent may set `stream: true` (responses are still recorded whole). */
  readonly streaming?: boolean;
}

/** A `spec.providers` entry as a provider kind sees it. */
export interface ProviderSettings {
  /** The entry's name in `spec.providers`. */
  readonly name: string;
  readonly kind: string;
  readonly endpoint?: string;
  readonly apiVersion?: string;
}

/** Everything one call may use. Secrets are resolved values: never put them in errors or results. */
export interface ProviderCallContext {
  readonly provider: ProviderSettings;
  /** The resolved credential (`credential`, or the kind's default variable), when there is one. */
  readonly credential?: string;
  /** Resolved `headers` of the provider entry. */
  readonly headers: Readonly<Record<string, string>>;
  /** HTTP under the workflow's network policy. */
  readonly network: NetworkClient;
  /** Aborted on cancellation or at the call's timeout. */
  readonly signal: AbortSignal;
  /** The agent's `timeoutSeconds` for one call, in milliseconds. */
  readonly timeoutMs: number;
  /** The recorded effect of this call: stable across resumes, usable as an idempotency key. */
  readonly effectId: string;
  /** 1 for the task's first provider request, counting every attempt of every turn (retries included). */
  readonly sequence: number;
  /**
   * Present when the agent set `stream: true`: a streaming provider reports each piece of the answer as it arrives
   * (`{type: 'delta', payload: {delta: TEXT}}`), in order, awaiting each. The answer is still returned whole.
   */
  readonly progress?: (event: ProviderProgress) => Promise<void>;
}

/** One piece of a streamed answer: its type (`delta`, ...) and what it holds; never a secret. */
export interface ProviderProgress {
  readonly type: string;
  readonly payload: JsonObject;
  /** The provider's own sequence number of the piece, when it has one. */
  readonly providerSequence?: number;
}

/** One embedding request: every text of `texts`, embedded by `model` into vectors of `dimensions` numbers. */
export interface EmbeddingRequest {
  readonly model: string;
  readonly texts: readonly string[];
  /** The vector length asked for (sent to the API when it takes one); every returned vector must have it. */
  readonly dimensions: number;
}

/** Tokens an embedding request used, as the provider reported them. */
export interface EmbeddingUsage {
  readonly inputTokens: number;
  readonly totalTokens: number;
}

/** The vectors of an embedding request, one per text in order, and what it cost. */
export interface EmbeddingResponse {
  readonly vectors: readonly (readonly number[])[];
  readonly usage: EmbeddingUsage;
  /** The model that answered, when the provider says. */
  readonly model?: string;
}

/** What one embedding call may use: a model call's context without the agent's turn bookkeeping. */
export type EmbeddingCallContext = Pick<ProviderCallContext, 'provider' | 'credential' | 'headers' | 'network' | 'signal' | 'timeoutMs'>;

/**
 * A model provider kind (`fake`, `openai`, ...). `call` throws an EffectFailure: `failed` with
 * AGENTCTL_E_PROVIDER_UNAVAILABLE for a definite retryable answer (429, 5xx), `failed` with
 * AGENTCTL_E_PROVIDER_REJECTED for any other definite refusal, `uncertain` with AGENTCTL_E_PROVIDER_UNCERTAIN when the
 * request may have been processed but no answer arrived (a timeout or lost connection after sending).
 */
export interface ModelProvider {
  readonly kind: string;
  readonly description: string;
  readonly capabilities: ProviderCapabilities;
  /** The environment variable read when the provider entry names no `credential`; absent: none is needed. */
  readonly credentialVariable?: string;
  /** Whether `endpoint` must be given (e.g. Azure). */
  readonly requiresEndpoint?: boolean;
  /** Validates an agent's `providerOptions` at `check`; absent: only `{}` is accepted. */
  readonly optionsSchema?: z.ZodType<JsonObject>;
  /** The URLs a call will reach, so the host can apply the network policy before any run exists. */
  urls?(provider: ProviderSettings): readonly string[];
  call(request: ModelRequest, context: ProviderCallContext): Promise<ModelResponse>;
  /**
   * Embeddings, for long-term memory that names this provider entry: absent, the kind cannot embed and `check`
   * refuses such a workflow. Failures are EffectFailures as for `call`; the host checks the vectors it gets back
   * (their count, length and finite numbers) whatever the provider checked.
   */
  embed?(request: EmbeddingRequest, context: EmbeddingCallContext): Promise<EmbeddingResponse>;
  /** The URLs `embed` will reach, so the host can apply the network policy before any run exists. */
  embeddingUrls?(provider: ProviderSettings): readonly string[];
}
