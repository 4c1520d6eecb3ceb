// Provider kind `azure_openai`: the openai plugin's second kind, the same Responses wire format with Azure's URL and
// `api-key` header, against a local server that speaks the Responses API.
import { expect } from 'chai';
import openAiPlugin from '../../builtins/provider-openai/plugin.js';
import type { ModelProvider } from '@agentctl/sdk';
import { startOpenAiServer, type OpenAiServer } from '../support/openai-server.js';
import { providerHarness } from '../support/provider-harness.js';

const CANARY = 'azure-canary-91be3c07f4';

describe('provider azure_openai (Responses API on Azure)', () => {
  const harness = providerHarness({
    plugin: openAiPlugin,
    kind: 'azure_openai',
    start: startOpenAiServer,
    canary: CANARY,
    authHeader: 'api-key',
    authValue: (credential) => credential,
    // A same-named header of the entry never replaces the credential's.
    headers: { 'Api-Key': 'not-this-one' },
    model: 'my-gpt-deployment',
    providerName: 'azure',
  });
  const { context, request, failure } = harness;
  let provider: ModelProvider;
  let server: OpenAiServer;
  beforeEach(() => {
    provider = harness.provider;
    server = harness.server;
  });

  it('sends the openai body to endpoint?api-version=..., the credential in api-key', async () => {
    server.enqueue({ text: 'hello', usage: { input: 3, output: 2 } }, { text: 'again' }, { text: 'third' });
    const answer = await provider.call(request({ instructions: 'Be brief.', options: { store: false } }), context());
    expect(answer).to.deep.include({ content: [{ type: 'text', text: 'hello' }], finishReason: 'complete' });
    expect(answer.usage).to.deep.include({ inputTokens: 3, outputTokens: 2, totalTokens: 5 });
    // Azure authenticates with api-key only: no Authorization header is sent.
    expect(server.requests[0]!.headers.authorization).to.equal(undefined);
    await provider.call(request(), context({ provider: { name: 'azure', kind: 'azure_openai', endpoint: server.url, apiVersion: '2025-04-01-preview' } }));
    await provider.call(request(), context({ provider: { name: 'azure', kind: 'azure_openai', endpoint: `${server.url}?x=1`, apiVersion: 'v1' } }));
    expect(server.requests.map((item) => item.path)).to.deep.equal(['/v1/responses?api-version=v1', '/v1/responses?api-version=2025-04-01-preview', '/v1/responses?x=1&api-version=v1']);
    expect(server.requests[0]!.body).to.deep.equal({
      model: 'my-gpt-deployment',
      instructions: 'Be brief.',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'Summarise a.txt' }] }],
      max_output_tokens: 256,
      store: false,
    });
  });

  it('maps failures as openai does, naming azure_openai', async () => {
    server.enqueue({ error: 503, type: 'server_error' }, { error: 400, type: 'invalid_request_error', code: 'DeploymentNotFound', message: 'deployment of TOP-SECRET' }, { hang: true });
    const unavailable = await failure(provider.call(request(), context()));
    expect([unavailable.outcome, unavailable.code, unavailable.message]).to.deep.equal(['failed', 'AGENTCTL_E_PROVIDER_UNAVAILABLE', 'azure_openai answered 503 (server_error)']);
    const rejected = await failure(provider.call(request(), context()));
    expect([rejected.outcome, rejected.code, rejected.message]).to.deep.equal(['failed', 'AGENTCTL_E_PROVIDER_REJECTED', 'azure_openai answered 400 (invalid_request_error, DeploymentNotFound)']);
    const uncertain = await failure(provider.call(request(), context({ timeoutMs: 300 })));
    expect([uncertain.outcome, uncertain.code]).to.deep.equal(['uncertain', 'AGENTCTL_E_PROVIDER_UNCERTAIN']);
    const missing = await failure(provider.call(request(), context({ credential: undefined })));
    expect([missing.outcome, missing.code]).to.deep.equal(['failed', 'AGENTCTL_E_PROVIDER_CREDENTIAL_MISSING']);
    expect(server.requests).to.have.length(3);
  });

  it('declares the openai capabilities and options, its credential variable, a required endpoint and its URL', () => {
    expect(provider.capabilities).to.deep.equal({ tools: true, structuredOutput: true, reasoning: true, streaming: true });
    expect(provider.credentialVariable).to.equal('AZURE_OPENAI_API_KEY');
    expect(provider.requiresEndpoint).to.equal(true);
    expect(provider.optionsSchema!.safeParse({ store: false, promptCacheTtl: '30m' }).success).to.equal(true);
    expect(provider.optionsSchema!.safeParse({ deployment: 'x' }).success).to.equal(false);
    expect(provider.urls!({ name: 'azure', kind: 'azure_openai' })).to.deep.equal([]);
    expect(provider.urls!({ name: 'azure', kind: 'azure_openai', endpoint: 'https://team.openai.azure.com/openai/v1/responses' })).to.deep.equal(['https://team.openai.azure.com/openai/v1/responses?api-version=v1']);
  });
});
