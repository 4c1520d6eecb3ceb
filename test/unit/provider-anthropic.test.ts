// Provider kind `anthropic` through a real Host, a real HTTP client and a local server speaking the Messages API.
import { expect } from 'chai';
import anthropicPlugin from '../../builtins/provider-anthropic/plugin.js';
import type { ModelProvider, ModelRequest } from '@agentctl/sdk';
import { startAnthropicServer, type AnthropicServer } from '../support/anthropic-server.js';
import { providerHarness } from '../support/provider-harness.js';

const CANARY = 'sk-ant-canary-7c1e04b9a2';
const READ_TOOL = {
  name: 'read_file',
  description: 'Reads a workspace file',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
};

describe('provider anthropic (Messages API)', () => {
  const harness = providerHarness({
    plugin: anthropicPlugin,
    kind: 'anthropic',
    start: startAnthropicServer,
    canary: CANARY,
    authHeader: 'x-api-key',
    authValue: (credential) => credential,
    // A same-named header of the entry never replaces the credential's.
    headers: { 'X-Team': 'blue', 'X-Api-Key': 'not-this-one' },
    model: 'claude-sonnet-4-20250514',
  });
  const { context, request, failure } = harness;
  let provider: ModelProvider;
  let server: AnthropicServer;
  beforeEach(() => {
    provider = harness.provider;
    server = harness.server;
  });

  it('sends a two-turn tool loop as Messages API content blocks, field by field', async () => {
    server.enqueue({ toolCalls: [{ name: 'read_file', input: { path: 'a.txt' }, id: 'toolu_a1' }], text: 'Reading it.', usage: { input: 40, output: 12 } }, { text: 'a.txt says hello' });
    const first = request({ instructions: 'Be brief.', tools: [READ_TOOL], maxOutputTokens: 512 });
    const turn1 = await provider.call(first, context());
    expect(turn1).to.deep.include({
      content: [{ type: 'text', text: 'Reading it.' }, { type: 'tool_call', id: 'toolu_a1', name: 'read_file', input: { path: 'a.txt' } }],
      finishReason: 'tool_calls',
      model: 'claude-sonnet-4-20250514',
    });
    expect(turn1.usage).to.deep.equal({ inputTokens: 40, outputTokens: 12, totalTokens: 52, cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(turn1.responseId).to.match(/^msg_\d+$/);

    const second: ModelRequest = {
      ...first,
      messages: [
        ...first.messages,
        { role: 'assistant', content: [{ type: 'text', text: 'Reading it.' }, { type: 'tool_call', id: 'toolu_a1', name: 'read_file', input: { path: 'a.txt' } }] },
        { role: 'tool', content: [{ type: 'tool_result', callId: 'toolu_a1', name: 'read_file', output: { content: 'hello' } }] },
      ],
    };
    const turn2 = await provider.call(second, context({ sequence: 2 }));
    expect(turn2.content).to.deep.equal([{ type: 'text', text: 'a.txt says hello' }]);
    expect(turn2.finishReason).to.equal('complete');

    expect(server.requests).to.have.length(2);
    const [one, two] = server.requests;
    expect(one!.method).to.equal('POST');
    expect(one!.path).to.equal('/v1/messages');
    expect(one!.headers['content-type']).to.equal('application/json');
    expect(one!.headers['anthropic-version']).to.equal('2023-06-01');
    expect(one!.headers['x-team']).to.equal('blue');
    expect(one!.headers.authorization).to.equal(undefined);
    const tools = [{ name: 'read_file', description: 'Reads a workspace file', input_schema: READ_TOOL.inputSchema }];
    const user = { role: 'user', content: [{ type: 'text', text: 'Summarise a.txt' }] };
    expect(one!.body).to.deep.equal({ model: 'claude-sonnet-4-20250514', system: 'Be brief.', messages: [user], max_tokens: 512, tools });
    expect(two!.body).to.deep.equal({
      model: 'claude-sonnet-4-20250514',
      system: 'Be brief.',
      messages: [
        user,
        { role: 'assistant', content: [{ type: 'text', text: 'Reading it.' }, { type: 'tool_use', id: 'toolu_a1', name: 'read_file', input: { path: 'a.txt' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_a1', content: '{"content":"hello"}' }] },
      ],
      max_tokens: 512,
      tools,
    });
  });

  it('asks for structured output in the system prompt, and maps reasoning effort to a thinking budget', async () => {
    const schema = { type: 'object', properties: { answer: { type: 'integer' } }, required: ['answer'], additionalProperties: false };
    server.enqueue({ json: { answer: 42 } }, { text: 'thought about it', thinking: 'hmm' }, { text: 'x' });
    const answer = await provider.call(request({ instructions: 'Be brief.', structuredOutput: schema, reasoning: { effort: 'medium' }, maxOutputTokens: 8192 }), context());
    expect(answer.content).to.deep.equal([{ type: 'text', text: '{"answer":42}' }]);
    // Thinking blocks are not text: they are skipped.
    const thought = await provider.call(request({ reasoning: { effort: 'max' }, maxOutputTokens: 2048 }), context());
    expect(thought.content).to.deep.equal([{ type: 'text', text: 'thought about it' }]);
    await provider.call(request({ reasoning: { effort: 'none' } }), context());

    const [body, capped, none] = server.requests.map((item) => item.body as Record<string, unknown>);
    expect(body).to.deep.equal({
      model: 'claude-sonnet-4-20250514',
      system: `Be brief.\n\nAnswer with only a JSON value, without any other text or code fences, that matches this JSON Schema:\n${JSON.stringify(schema)}`,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Summarise a.txt' }] }],
      max_tokens: 8192,
      thinking: { type: 'enabled', budget_tokens: 4096 },
    });
    // The budget stays below max_tokens, as Anthropic requires; effort none sends no thinking at all.
    expect(capped!.thinking).to.deep.equal({ type: 'enabled', budget_tokens: 2047 });
    expect(Object.keys(none!).sort()).to.deep.equal(['max_tokens', 'messages', 'model']);
  });

  it('refuses reasoning without sending when maxOutputTokens leaves no room for the minimum thinking budget', async () => {
    const refused = await failure(provider.call(request({ reasoning: { effort: 'low' }, maxOutputTokens: 1024 }), context()));
    expect([refused.outcome, refused.code]).to.deep.equal(['failed', 'AGENTCTL_E_PROVIDER_REJECTED']);
    expect(refused.message).to.equal('anthropic thinking needs a budget of at least 1024 tokens below max_tokens: raise maxOutputTokens above 1024 (nothing was sent)');
    expect(server.requests).to.have.length(0);
  });

  it('maps usage, several tool calls, max_tokens and refusal', async () => {
    server.enqueue(
      { text: 'done', usage: { input: 100, output: 50, cacheRead: 64, cacheWrite: 32 }, model: 'claude-sonnet-4-20250514-x' },
      { toolCalls: [{ name: 'read_file', input: { path: 'a' }, id: 'c1' }, { name: 'read_file', input: { path: 'b' }, id: 'c2' }] },
      { maxTokens: 'The summary is', toolCalls: [{ name: 'read_file', input: { path: 'c' }, id: 'c3' }] },
      { refusal: 'I cannot help with that.' },
    );
    const done = await provider.call(request(), context());
    expect(done).to.deep.include({ content: [{ type: 'text', text: 'done' }], finishReason: 'complete', model: 'claude-sonnet-4-20250514-x' });
    expect(done.usage).to.deep.equal({ inputTokens: 100, outputTokens: 50, totalTokens: 150, cacheReadTokens: 64, cacheWriteTokens: 32 });
    const calls = await provider.call(request(), context());
    expect(calls.finishReason).to.equal('tool_calls');
    expect(calls.content).to.deep.equal([
      { type: 'tool_call', id: 'c1', name: 'read_file', input: { path: 'a' } },
      { type: 'tool_call', id: 'c2', name: 'read_file', input: { path: 'b' } },
    ]);
    // A call in an answer cut off by the token limit is dropped: it is never run.
    const cut = await provider.call(request(), context());
    expect(cut.finishReason).to.equal('max_tokens');
    expect(cut.content).to.deep.equal([{ type: 'text', text: 'The summary is' }]);
    const refused = await provider.call(request(), context());
    expect(refused.finishReason).to.equal('refusal');
    expect(refused.content).to.deep.equal([{ type: 'text', text: 'I cannot help with that.' }]);
  });

  it('reports 429 and 5xx as failed AGENTCTL_E_PROVIDER_UNAVAILABLE, retryable', async () => {
    server.enqueue({ error: 529, type: 'overloaded_error' }, { error: 429, type: 'rate_limit_error' }, { error: 500, type: 'api_error' });
    const overloaded = await failure(provider.call(request(), context()));
    expect([overloaded.outcome, overloaded.code, overloaded.message]).to.deep.equal(['failed', 'AGENTCTL_E_PROVIDER_UNAVAILABLE', 'anthropic answered 529 (overloaded_error)']);
    expect(overloaded.exitCode).to.equal(6);
    const limited = await failure(provider.call(request(), context()));
    expect([limited.outcome, limited.code, limited.message]).to.deep.equal(['failed', 'AGENTCTL_E_PROVIDER_UNAVAILABLE', 'anthropic answered 429 (rate_limit_error)']);
    const broken = await failure(provider.call(request(), context()));
    expect([broken.code, broken.message]).to.deep.equal(['AGENTCTL_E_PROVIDER_UNAVAILABLE', 'anthropic answered 500 (api_error)']);
  });

  it('reports another 4xx as failed AGENTCTL_E_PROVIDER_REJECTED, naming the status and error type only', async () => {
    server.enqueue({ error: 400, type: 'invalid_request_error', message: 'messages.0: your system prompt TOP-SECRET-PLAN is invalid' });
    const rejected = await failure(provider.call(request({ instructions: 'TOP-SECRET-PLAN' }), context()));
    expect([rejected.outcome, rejected.code, rejected.message]).to.deep.equal(['failed', 'AGENTCTL_E_PROVIDER_REJECTED', 'anthropic answered 400 (invalid_request_error)']);
    expect(rejected.details).to.deep.equal({ status: 400 });
    expect(JSON.stringify(rejected.diagnostics)).not.to.contain('TOP-SECRET').and.not.to.contain('Summarise');
    expect(rejected.diagnostics[0]).to.deep.include({ plugin: 'builtin.provider.anthropic', hook: 'provider:anthropic' });
  });

  harness.transportCases();

  it('reports an answer it cannot read as failed AGENTCTL_E_PROVIDER_RESPONSE_INVALID', async () => {
    server.enqueue(
      { raw: '{"id": "msg_1", "content": [' },
      { raw: JSON.stringify({ id: 'msg_2', stop_reason: 'end_turn', usage: { input_tokens: 1, output_tokens: 1 } }) },
      { raw: JSON.stringify({ content: [{ type: 'tool_use', name: 'read_file' }], stop_reason: 'tool_use', usage: { input_tokens: 1, output_tokens: 1 } }) },
      { raw: JSON.stringify({ content: [], stop_reason: 'end_turn' }) },
      { raw: `{"pad": "${'x'.repeat(4 * 1024 * 1024)}"}` },
    );
    const messages: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      const invalid = await failure(provider.call(request(), context()));
      expect([invalid.outcome, invalid.code], invalid.message).to.deep.equal(['failed', 'AGENTCTL_E_PROVIDER_RESPONSE_INVALID']);
      messages.push(invalid.message);
    }
    expect(messages.slice(0, 4)).to.deep.equal([
      'anthropic answer: the body is not JSON (28 bytes)',
      'anthropic answer: content: Invalid input: expected array, received undefined',
      'anthropic answer: content.0: a tool_use without id, name or input',
      'anthropic answer: usage: Invalid input: expected object, received undefined',
    ]);
    expect(messages[4]).to.contain('larger than 4194304 bytes');
  });

  it('fails without sending when no credential was resolved', async () => {
    const missing = await failure(provider.call(request(), context({ credential: undefined })));
    expect([missing.outcome, missing.code]).to.deep.equal(['failed', 'AGENTCTL_E_PROVIDER_CREDENTIAL_MISSING']);
    expect(server.requests).to.have.length(0);
  });

  it('takes no providerOptions', () => {
    const schema = provider.optionsSchema!;
    expect(schema.safeParse({}).success).to.equal(true);
    const unknown = schema.safeParse({ store: false });
    expect(unknown.error!.issues[0]).to.deep.include({ code: 'unrecognized_keys', keys: ['store'] });
  });

  it('declares its capabilities, credential variable and the URL it reaches', () => {
    expect(provider.capabilities).to.deep.equal({ tools: true, structuredOutput: true, reasoning: true, streaming: false });
    expect(provider.credentialVariable).to.equal('ANTHROPIC_API_KEY');
    expect(provider.requiresEndpoint).to.equal(undefined);
    expect(provider.urls!({ name: 'main', kind: 'anthropic' })).to.deep.equal(['https://api.anthropic.com/v1/messages']);
    expect(provider.urls!({ name: 'local', kind: 'anthropic', endpoint: 'http://127.0.0.1:8080/v1/messages' })).to.deep.equal(['http://127.0.0.1:8080/v1/messages']);
  });
});
