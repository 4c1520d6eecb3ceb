// Provider kind `openai`: one model turn is one `POST {endpoint}` of the OpenAI Responses API, sent through
// the host's network client (never a socket of its own), so the workflow's network policy applies to it.
import { definePlugin, EffectFailure, type HttpResponse, type ModelProvider, type ModelRequest, type ModelResponse, type ProviderCallContext, type ProviderSettings } from '../../sdk/index.js';
import { networkFailure, statusFailure } from './failures.js';
import { openAiOptionsSchema, optionsSchema } from './options.js';
import { requestBody } from './request.js';
import { modelResponse } from './response.js';

const DEFAULT_ENDPOINT = 'https://api.openai.com/v1/responses';
/** The largest answer read; a longer one is AGENTCTL_E_PROVIDER_RESPONSE_INVALID. */
export const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** The URL requests are sent to: `endpoint` as written (the reference's rule: the whole URL), by default OpenAI's. */
export function responsesUrl(provider: ProviderSettings): string {
  return provider.endpoint ?? DEFAULT_ENDPOINT;
}

/** The headers sent: the entry's own `headers`, then the standard ones, which win whatever case the entry used. */
function requestHeaders(context: ProviderCallContext, credential: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(context.headers)) headers[name.toLowerCase()] = value;
  headers.authorization = `Bearer ${credential}`;
  headers['content-type'] = 'application/json';
  return headers;
}

async function call(request: ModelRequest, context: ProviderCallContext): Promise<ModelResponse> {
  if (context.credential === undefined) {
    throw new EffectFailure('failed', 'AGENTCTL_E_PROVIDER_CREDENTIAL_MISSING', `provider ${context.provider.name} (openai) has no credential; nothing was sent`);
  }
  const body = JSON.stringify(requestBody(request, openAiOptionsSchema.parse(request.options)));
  let response: HttpResponse;
  try {
    response = await context.network.request({
      url: responsesUrl(context.provider),
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

export const openAiProvider: ModelProvider = Object.freeze({
  kind: 'openai',
  description: 'OpenAI Responses API (POST {endpoint}), the whole conversation sent every turn.',
  capabilities: Object.freeze({ tools: true, structuredOutput: true, reasoning: true, streaming: true }),
  credentialVariable: 'OPENAI_API_KEY',
  optionsSchema,
  urls: (provider: ProviderSettings) => [responsesUrl(provider)],
  call,
});

export default definePlugin({
  name: 'builtin.provider.openai',
  version: '0.1.0',
  hostRange: '^0.1.0',
  description: 'Provides model provider kind openai (the Responses API), through the network client under policy.',
  setup(api) {
    api.registerProvider(openAiProvider);
  },
});
