// Provider kind `anthropic`: one model turn is one `POST {endpoint}` of Anthropic's Messages API, sent through the
// host's network client (never a socket of its own), so the workflow's network policy applies to it.
import { definePlugin, postProviderJson, type JsonObject, type ModelProvider, type ModelRequest, type ModelResponse, type ProviderCallContext, type ProviderSettings } from '@agentctl/sdk';
import { z } from 'zod';
import { requestBody } from './request.js';
import { modelResponse } from './response.js';

const DEFAULT_ENDPOINT = 'https://api.anthropic.com/v1/messages';
const API_VERSION = '2023-06-01';
/** The largest answer read; a longer one is AGENTCTL_E_PROVIDER_RESPONSE_INVALID. */
export const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** The URL requests are sent to: `endpoint` as written (the whole URL), by default Anthropic's. */
export function messagesUrl(provider: ProviderSettings): string {
  return provider.endpoint ?? DEFAULT_ENDPOINT;
}

async function call(request: ModelRequest, context: ProviderCallContext): Promise<ModelResponse> {
  const body = await postProviderJson(context, {
    kind: 'anthropic',
    url: messagesUrl(context.provider),
    auth: { 'x-api-key': context.credential ?? '', 'anthropic-version': API_VERSION },
    body: requestBody(request),
    maxResponseBytes: MAX_RESPONSE_BYTES,
    // Anthropic's error body: {"type": "error", "error": {"type": "invalid_request_error", "message": "..."}}.
    errorIdentifiers: (parsed) => [(parsed as { error?: { type?: unknown } } | null)?.error?.type],
  });
  return modelResponse(body);
}

export const anthropicProvider: ModelProvider = Object.freeze({
  kind: 'anthropic',
  description: "Anthropic Messages API (POST {endpoint}), the whole conversation sent every turn.",
  capabilities: Object.freeze({ tools: true, structuredOutput: true, reasoning: true, streaming: false }),
  credentialVariable: 'ANTHROPIC_API_KEY',
  // No provider options: any key is refused at `check`.
  optionsSchema: z.strictObject({}) as unknown as z.ZodType<JsonObject>,
  urls: (provider: ProviderSettings) => [messagesUrl(provider)],
  call,
});

export default definePlugin({
  name: 'builtin.provider.anthropic',
  version: '0.1.0',
  hostRange: '^0.1.0',
  description: 'Provides model provider kind anthropic (the Messages API), through the network client under policy.',
  setup(api) {
    api.registerProvider(anthropicProvider);
  },
});
