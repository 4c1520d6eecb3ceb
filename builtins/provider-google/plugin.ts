// Provider kind `google`: one model turn is one `POST {endpoint}/{model}:generateContent` of the Gemini API, sent
// through the host's network client (never a socket of its own), so the workflow's network policy applies to it.
import { definePlugin, postProviderJson, type JsonObject, type ModelProvider, type ModelRequest, type ModelResponse, type ProviderCallContext, type ProviderSettings } from '@agentctl/sdk';
import { z } from 'zod';
import { requestBody } from './request.js';
import { modelResponse } from './response.js';

const DEFAULT_ENDPOINT = 'https://generativelanguage.googleapis.com/v1beta/models';
/** The largest answer read; a longer one is AGENTCTL_E_PROVIDER_RESPONSE_INVALID. */
export const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** The models URL: `endpoint` as written, by default Google's; a request goes to `{endpoint}/{model}:generateContent`. */
export function modelsUrl(provider: ProviderSettings): string {
  return provider.endpoint ?? DEFAULT_ENDPOINT;
}

export function generateUrl(provider: ProviderSettings, model: string): string {
  return `${modelsUrl(provider).replace(/\/+$/, '')}/${encodeURIComponent(model)}:generateContent`;
}

async function call(request: ModelRequest, context: ProviderCallContext): Promise<ModelResponse> {
  const body = await postProviderJson(context, {
    kind: 'google',
    url: generateUrl(context.provider, request.model),
    auth: { 'x-goog-api-key': context.credential ?? '' },
    body: requestBody(request),
    maxResponseBytes: MAX_RESPONSE_BYTES,
    // Google's error body: {"error": {"code": 400, "message": "...", "status": "INVALID_ARGUMENT"}}.
    errorIdentifiers: (parsed) => [(parsed as { error?: { status?: unknown } } | null)?.error?.status],
  });
  return modelResponse(body, request);
}

export const googleProvider: ModelProvider = Object.freeze({
  kind: 'google',
  description: 'Google Gemini API (POST {endpoint}/{model}:generateContent), the whole conversation sent every turn.',
  capabilities: Object.freeze({ tools: true, structuredOutput: true, reasoning: true, streaming: false }),
  credentialVariable: 'GEMINI_API_KEY',
  // No provider options: any key is refused at `check`.
  optionsSchema: z.strictObject({}) as unknown as z.ZodType<JsonObject>,
  // The model is part of each URL; scheme, host and port, which the policy judges, are the endpoint's.
  urls: (provider: ProviderSettings) => [modelsUrl(provider)],
  call,
});

export default definePlugin({
  name: 'builtin.provider.google',
  version: '0.1.0',
  hostRange: '^0.1.0',
  description: 'Provides model provider kind google (Gemini generateContent), through the network client under policy.',
  setup(api) {
    api.registerProvider(googleProvider);
  },
});
