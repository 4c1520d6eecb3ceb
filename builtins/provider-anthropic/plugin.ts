// Provider kind `anthropic`: one model turn is one `POST {endpoint}` of Anthropic's Messages API, sent through the
// host's network client (never a socket of its own), so the workflow's network policy applies to it.
import { definePlugin, EffectFailure, type HttpResponse, type JsonObject, type ModelProvider, type ModelRequest, type ModelResponse, type ProviderCallContext, type ProviderSettings } from '../../sdk/index.js';
import { z } from 'zod';
import { networkFailure, statusFailure } from './failures.js';
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

/** The headers sent: the entry's own `headers`, then the standard ones, which win whatever case the entry used. */
function requestHeaders(context: ProviderCallContext, credential: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(context.headers)) headers[name.toLowerCase()] = value;
  headers['x-api-key'] = credential;
  headers['anthropic-version'] = API_VERSION;
  headers['content-type'] = 'application/json';
  return headers;
}

async function call(request: ModelRequest, context: ProviderCallContext): Promise<ModelResponse> {
  if (context.credential === undefined) {
    throw new EffectFailure('failed', 'AGENTCTL_E_PROVIDER_CREDENTIAL_MISSING', `provider ${context.provider.name} (anthropic) has no credential; nothing was sent`);
  }
  const body = JSON.stringify(requestBody(request));
  let response: HttpResponse;
  try {
    response = await context.network.request({
      url: messagesUrl(context.provider),
      method: 'POST',
      headers: requestHeaders(context, context.credential),
      body,
      timeoutMs: context.timeoutMs,
      maxResponseBytes: MAX_RESPONSE_BYTES,
      signal: context.signal,
    });
  } catch (error) {
    throw networkFailure(error);
  }
  if (response.status < 200 || response.status >= 300) throw statusFailure(response);
  return modelResponse(response.body);
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
