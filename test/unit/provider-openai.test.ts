// Provider kind `openai` through a real Host, a real HTTP client and a local server speaking the Responses API.
import { expect } from 'chai';
import openAiPlugin from '../../builtins/provider-openai/plugin.js';
import type { ModelProvider, ModelRequest } from '@agentctl/sdk';
import { startOpenAiServer, type OpenAiServer } from '../support/openai-server.js';
import { providerHarness } from '../support/provider-harness.js';

const CANARY = 'sk-canary-0d5e9b27c4a1f3';
const READ_TOOL = {
  name: 'read_file',
  description: 'Reads a workspace file',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
};

describe('provider openai (Responses API)', () => {
  const harness = providerHarness({
    plugin: openAiPlugin,
    kind: 'openai',
    start: startOpenAiServer,
    canary: CANARY,
    authHeader: 'authorization',
    authValue: (credential) => `Bearer ${credential}`,
    // A same-named header of the entry never replaces the credential's.
    headers: { 'X-Team': 'blue', Authorization: 'Bearer not-this-one' },
    model: 'gpt-5-mini',
  });
  const { context, request, failure } = harness;
  let provider: ModelProvider;
  let server: OpenAiServer;
  beforeEach(() => {
    provider = harness.provider;
    server = harness.server;
  });

  it('sends a two-turn tool loop as Responses input items, field by field', async () => {
    server.enqueue({ toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' }, callId: 'call_a1' }], usage: { input: 40, output: 12 } }, { text: 'a.txt says hello' });
    const first = request({ instructions: 'Be brief.', tools: [READ_TOOL], maxOutputTokens: 512 });
    const turn1 = await provider.call(first, context());
    expect(turn1).to.deep.include({ content: [{ type: 'tool_call', id: 'call_a1', name: 'read_file', input: { path: 'a.txt' } }], finishReason: 'tool_calls', model: 'gpt-5-mini' });
    expect(turn1.usage).to.deep.equal({ inputTokens: 40, outputTokens: 12, totalTokens: 52, reasoningTokens: 0, cacheReadTokens: 0 });
    expect(turn1.responseId).to.match(/^resp_\d+$/);

    const second: ModelRequest = {
      ...first,
      messages: [
        ...first.messages,
        { role: 'assistant', content: [{ type: 'text', text: 'Reading it.' }, { type: 'tool_call', id: 'call_a1', name: 'read_file', input: { path: 'a.txt' } }] },
        { role: 'tool', content: [{ type: 'tool_result', callId: 'call_a1', name: 'read_file', output: { content: 'hello' } }] },
      ],
    };
    const turn2 = await provider.call(second, context({ sequence: 2 }));
    expect(turn2.content).to.deep.equal([{ type: 'text', text: 'a.txt says hello' }]);
    expect(turn2.finishReason).to.equal('complete');

    expect(server.requests).to.have.length(2);
    const [one, two] = server.requests;
    expect(one!.method).to.equal('POST');
    expect(one!.path).to.equal('/v1/responses');
    expect(one!.headers['content-type']).to.equal('application/json');
    expect(one!.headers['x-team']).to.equal('blue');
    const tools = [{ type: 'function', name: 'read_file', description: 'Reads a workspace file', parameters: READ_TOOL.inputSchema, strict: true }];
    const userItem = { role: 'user', content: [{ type: 'input_text', text: 'Summarise a.txt' }] };
    expect(one!.body).to.deep.equal({ model: 'gpt-5-mini', instructions: 'Be brief.', input: [userItem], tools, max_output_tokens: 512 });
    expect(two!.body).to.deep.equal({
      model: 'gpt-5-mini',
      instructions: 'Be brief.',
      input: [
        userItem,
        { role: 'assistant', content: [{ type: 'output_text', text: 'Reading it.' }] },
        { type: 'function_call', call_id: 'call_a1', name: 'read_file', arguments: '{"path":"a.txt"}' },
        { type: 'function_call_output', call_id: 'call_a1', output: '{"content":"hello"}' },
      ],
      tools,
      max_output_tokens: 512,
    });
  });

  it('asks for structured output and reasoning natively, and sends the options given, renamed', async () => {
    const schema = { type: 'object', properties: { answer: { type: 'integer' } }, required: ['answer'], additionalProperties: false };
    server.enqueue({ json: { answer: 42 } }, { text: 'plain' });
    const options = { store: false, parallelToolCalls: false, safetyIdentifier: 'user-42', promptCacheTtl: '30m', promptCacheMode: 'explicit', reasoningContext: 'current_turn' };
    const answer = await provider.call(request({ structuredOutput: schema, reasoning: { effort: 'max' }, options }), context());
    expect(answer.content).to.deep.equal([{ type: 'text', text: '{"answer":42}' }]);
    await provider.call(request({ messages: [{ role: 'user', content: [{ type: 'text', text: 'another turn' }] }], options: { promptCacheMode: 'explicit' } }), context());

    const [body, next] = server.requests.map((item) => item.body as Record<string, unknown>);
    expect(body!.prompt_cache_key).to.match(/^agentctl-[0-9a-f]{16}$/);
    // The key follows model, instructions and tools, not the conversation: turns of one agent share it.
    expect(next!.prompt_cache_key).to.equal(body!.prompt_cache_key);
    expect(body).to.deep.equal({
      model: 'gpt-5-mini',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'Summarise a.txt' }] }],
      max_output_tokens: 256,
      text: { format: { type: 'json_schema', name: 'agentctl_output', schema, strict: true } },
      reasoning: { effort: 'xhigh' },
      store: false,
      parallel_tool_calls: false,
      safety_identifier: 'user-42',
      prompt_cache_retention: 'in_memory',
      prompt_cache_key: body!.prompt_cache_key,
    });
    // Without options nothing optional is sent: `store` keeps OpenAI's default.
    expect(Object.keys(next!).sort()).to.deep.equal(['input', 'max_output_tokens', 'model', 'prompt_cache_key']);
  });

  it('maps usage, several tool calls, max_tokens and refusal', async () => {
    server.enqueue(
      { text: 'done', usage: { input: 100, output: 50, reasoning: 20, cached: 64 }, model: 'gpt-5-mini-2025-08-07' },
      { toolCalls: [{ name: 'read_file', arguments: { path: 'a' }, callId: 'c1' }, { name: 'read_file', arguments: { path: 'b' }, callId: 'c2' }] },
      { incomplete: 'max_output_tokens', text: 'The summary is', toolCalls: [{ name: 'read_file', arguments: '{"path": "c', callId: 'c3' }] },
      { refusal: 'I cannot help with that.' },
    );
    const done = await provider.call(request(), context());
    expect(done).to.deep.include({ content: [{ type: 'text', text: 'done' }], finishReason: 'complete', model: 'gpt-5-mini-2025-08-07' });
    expect(done.usage).to.deep.equal({ inputTokens: 100, outputTokens: 50, totalTokens: 150, reasoningTokens: 20, cacheReadTokens: 64 });
    const calls = await provider.call(request(), context());
    expect(calls.finishReason).to.equal('tool_calls');
    expect(calls.content).to.deep.equal([
      { type: 'tool_call', id: 'c1', name: 'read_file', input: { path: 'a' } },
      { type: 'tool_call', id: 'c2', name: 'read_file', input: { path: 'b' } },
    ]);
    // A call cut off by the token limit is dropped, and the answer reports max_tokens, never tool_calls.
    const cut = await provider.call(request(), context());
    expect(cut.finishReason).to.equal('max_tokens');
    expect(cut.content).to.deep.equal([{ type: 'text', text: 'The summary is' }]);
    const refused = await provider.call(request(), context());
    expect(refused.finishReason).to.equal('refusal');
    expect(refused.content).to.deep.equal([{ type: 'text', text: 'I cannot help with that.' }]);
  });

  it('reports 429 and 5xx as failed AGENTCTL_E_PROVIDER_UNAVAILABLE, retryable', async () => {
    server.enqueue({ error: 503, type: 'server_error' }, { error: 429, type: 'requests', code: 'rate_limit_exceeded' });
    const unavailable = await failure(provider.call(request(), context()));
    expect([unavailable.outcome, unavailable.code, unavailable.message]).to.deep.equal(['failed', 'AGENTCTL_E_PROVIDER_UNAVAILABLE', 'openai answered 503 (server_error)']);
    expect(unavailable.exitCode).to.equal(6);
    const limited = await failure(provider.call(request(), context()));
    expect([limited.outcome, limited.code, limited.message]).to.deep.equal(['failed', 'AGENTCTL_E_PROVIDER_UNAVAILABLE', 'openai answered 429 (requests, rate_limit_exceeded)']);
  });

  it('reports another 4xx as failed AGENTCTL_E_PROVIDER_REJECTED, naming the status, type and code only', async () => {
    // OpenAI's error messages may quote the request: none of it may reach the diagnostic.
    server.enqueue({ error: 400, type: 'invalid_request_error', code: 'model_not_found', message: 'Model gpt-x does not exist. Your instructions were: TOP-SECRET-PLAN' });
    const rejected = await failure(provider.call(request({ model: 'gpt-x', instructions: 'TOP-SECRET-PLAN' }), context()));
    expect([rejected.outcome, rejected.code, rejected.message]).to.deep.equal(['failed', 'AGENTCTL_E_PROVIDER_REJECTED', 'openai answered 400 (invalid_request_error, model_not_found)']);
    expect(rejected.details).to.deep.equal({ status: 400 });
    expect(JSON.stringify(rejected.diagnostics)).not.to.contain('TOP-SECRET').and.not.to.contain('Summarise');
    expect(rejected.diagnostics[0]).to.deep.include({ plugin: 'builtin.provider.openai', hook: 'provider:openai' });
  });

  harness.transportCases();

  it('does not follow a redirect', async () => {
    server.enqueue({ redirect: `${server.url}/elsewhere` }, { text: 'must not be reached' });
    const redirect = await failure(provider.call(request(), context()));
    expect([redirect.outcome, redirect.code]).to.deep.equal(['failed', 'AGENTCTL_E_NETWORK_REDIRECT']);
    expect(server.requests.map((item) => item.path)).to.deep.equal(['/v1/responses']);
  });

  it('reports an answer it cannot read as failed AGENTCTL_E_PROVIDER_RESPONSE_INVALID', async () => {
    server.enqueue(
      { raw: '{"id": "resp_1", "output": [' },
      { raw: JSON.stringify({ id: 'resp_2', status: 'completed', usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 } }) },
      { toolCalls: [{ name: 'read_file', arguments: '{"path": ', callId: 'c9' }] },
      { raw: JSON.stringify({ output: [], usage: null }) },
      { raw: `{"pad": "${'x'.repeat(4 * 1024 * 1024)}"}` },
    );
    const messages: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      const invalid = await failure(provider.call(request(), context()));
      expect([invalid.outcome, invalid.code], invalid.message).to.deep.equal(['failed', 'AGENTCTL_E_PROVIDER_RESPONSE_INVALID']);
      messages.push(invalid.message);
    }
    expect(messages.slice(0, 3)).to.deep.equal([
      'openai answer: the body is not JSON (28 bytes)',
      'openai answer: output: Invalid input: expected array, received undefined',
      'openai answer: output.0: the arguments of function_call read_file are not JSON',
    ]);
    expect(messages[3]).to.match(/^openai answer: usage: /);
    expect(messages[4]).to.contain('larger than 4194304 bytes');
  });

  it('fails without sending when no credential was resolved', async () => {
    const missing = await failure(provider.call(request(), context({ credential: undefined })));
    expect([missing.outcome, missing.code]).to.deep.equal(['failed', 'AGENTCTL_E_PROVIDER_CREDENTIAL_MISSING']);
    expect(server.requests).to.have.length(0);
  });

  it('validates providerOptions with a closed schema', () => {
    const schema = provider.optionsSchema!;
    expect(schema.safeParse({ store: true, promptCacheTtl: '30m', parallelToolCalls: true, reasoningContext: 'auto' }).success).to.equal(true);
    expect(schema.safeParse({}).success).to.equal(true);
    const unknown = schema.safeParse({ previousResponseId: 'resp_1' });
    expect(unknown.success).to.equal(false);
    expect(unknown.error!.issues[0]).to.deep.include({ code: 'unrecognized_keys', keys: ['previousResponseId'] });
    expect(schema.safeParse({ reasoningContext: 'all_turns' }).success).to.equal(true);
    expect(schema.safeParse({ reasoningContext: 'every_turn' }).success).to.equal(false);
    expect(schema.safeParse({ store: 'no' }).success).to.equal(false);
    expect(schema.safeParse({ safetyIdentifier: 'x'.repeat(65) }).success).to.equal(false);
    expect(schema.safeParse({ promptCacheTtl: '1h' }).success).to.equal(false);
  });

  it('declares its capabilities, credential variable and the URL it reaches', () => {
    expect(provider.capabilities).to.deep.equal({ tools: true, structuredOutput: true, reasoning: true, streaming: true });
    expect(provider.credentialVariable).to.equal('OPENAI_API_KEY');
    expect(provider.urls!({ name: 'main', kind: 'openai' })).to.deep.equal(['https://api.openai.com/v1/responses']);
    expect(provider.urls!({ name: 'local', kind: 'openai', endpoint: 'http://127.0.0.1:8080/v1/responses' })).to.deep.equal(['http://127.0.0.1:8080/v1/responses']);
  });
});
