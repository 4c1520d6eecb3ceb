// Provider kinds `openai` and `azure_openai`: one model turn is one `POST` of the OpenAI Responses API, sent through
// the host's network client (never a socket of its own), so the workflow's network policy applies to it. Azure speaks
// the same wire format; only the URL and the credential's header differ.
import { definePlugin, EffectFailure, postProviderJson, type ModelProvider, type ModelRequest, type ModelResponse, type ProviderCallContext, type ProviderSettings } from '@agentctl/sdk';
import { openAiOptionsSchema, optionsSchema } from './options.js';
import { requestBody } from './request.js';
import { modelResponse } from './response.js';
import { embeddingsUrl, embedOpenAi } from './embeddings.js';

const DEFAULT_ENDPOINT = 'https://api.openai.com/v1/responses';
/** The largest answer read; a longer one is AGENTCTL_E_PROVIDER_RESPONSE_INVALID. */
export const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** The URL requests are sent to: `endpoint` as written (the reference's rule: the whole URL), by default OpenAI's. */
export function responsesUrl(provider: ProviderSettings): string {
  return provider.endpoint ?? DEFAULT_ENDPOINT;
}

/**
 * The Azure URL: the deployment's `endpoint` (required) with `api-version` added, `apiVersion` or `v1` (the version of
 * Azure's v1 Responses API). Without an endpoint there is no URL: `check` refuses such an entry first.
 */
export function azureUrl(provider: ProviderSettings): string | undefined {
  if (provider.endpoint === undefined) return undefined;
  const separator = provider.endpoint.includes('?') ? '&' : '?';
  return `${provider.endpoint}${separator}api-version=${encodeURIComponent(provider.apiVersion ?? 'v1')}`;
}

/** How one kind addresses the API: where to send, and the header that carries the credential. */
interface Flavour {
  readonly kind: string;
  url(provider: ProviderSettings): string | undefined;
  authorization(credential: string): Record<string, string>;
}

const OPENAI: Flavour = { kind: 'openai', url: responsesUrl, authorization: (credential) => ({ authorization: `Bearer ${credential}` }) };
const AZURE: Flavour = { kind: 'azure_openai', url: azureUrl, authorization: (credential) => ({ 'api-key': credential }) };

async function call(flavour: Flavour, request: ModelRequest, context: ProviderCallContext): Promise<ModelResponse> {
  const url = flavour.url(context.provider);
  if (url === undefined) throw new EffectFailure('failed', 'AGENTCTL_E_AGENT_INVALID', `provider ${context.provider.name} (${flavour.kind}) has no endpoint; nothing was sent`);
  const options = openAiOptionsSchema.parse(request.options);
  const body = await postProviderJson(context, {
    kind: flavour.kind,
    url,
    auth: flavour.authorization(context.credential ?? ''),
    body: requestBody(request, options),
    maxResponseBytes: MAX_RESPONSE_BYTES,
    // OpenAI's error body: {"error": {"type": "invalid_request_error", "code": "...", "message": "..."}}.
    errorIdentifiers: (parsed) => {
      const error = (parsed as { error?: { type?: unknown; code?: unknown } } | null)?.error;
      return [error?.type, error?.code];
    },
  });
  return modelResponse(body, options.reasoningContext === 'all_turns');
}

export const openAiProvider: ModelProvider = Object.freeze({
  kind: 'openai',
  description: 'OpenAI Responses API (POST {endpoint}), the whole conversation sent every turn; embeddings (POST .../v1/embeddings) for long-term memory.',
  capabilities: Object.freeze({ tools: true, structuredOutput: true, reasoning: true, streaming: true }),
  credentialVariable: 'OPENAI_API_KEY',
  optionsSchema,
  urls: (provider: ProviderSettings) => [responsesUrl(provider)],
  call: (request: ModelRequest, context: ProviderCallContext) => call(OPENAI, request, context),
  embed: embedOpenAi,
  embeddingUrls: (provider: ProviderSettings) => [embeddingsUrl(provider)],
});

export const azureOpenAiProvider: ModelProvider = Object.freeze({
  kind: 'azure_openai',
  description: 'Azure OpenAI Responses API (POST {endpoint}?api-version=...), the same wire format as openai.',
  capabilities: openAiProvider.capabilities,
  credentialVariable: 'AZURE_OPENAI_API_KEY',
  requiresEndpoint: true,
  optionsSchema,
  urls: (provider: ProviderSettings) => {
    const url = azureUrl(provider);
    return url === undefined ? [] : [url];
  },
  call: (request: ModelRequest, context: ProviderCallContext) => call(AZURE, request, context),
});

export default definePlugin({
  name: 'builtin.provider.openai',
  version: '0.1.0',
  hostRange: '^0.1.0',
  description: 'Provides model provider kinds openai and azure_openai (the Responses API), through the network client under policy.',
  setup(api) {
    api.registerProvider(openAiProvider);
    api.registerProvider(azureOpenAiProvider);
  },
});
