// Provider kind `google` through a real Host, a real HTTP client and a local server speaking the Gemini API.
import { expect } from 'chai';
import googlePlugin from '../../builtins/provider-google/plugin.js';
import type { ModelProvider, ModelRequest } from '@agentctl/sdk';
import { startGoogleServer, type GoogleServer } from '../support/google-server.js';
import { providerHarness } from '../support/provider-harness.js';

const CANARY = 'AIza-canary-5f2b8e71d3';
const READ_TOOL = {
  name: 'read_file',
  description: 'Reads a workspace file',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
};
const GEMINI_READ_PARAMETERS = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };

describe('provider google (Gemini generateContent)', () => {
  const harness = providerHarness({
    plugin: googlePlugin,
    kind: 'google',
    start: startGoogleServer,
    canary: CANARY,
    authHeader: 'x-goog-api-key',
    authValue: (credential) => credential,
    // A same-named header of the entry never replaces the credential's.
    headers: { 'X-Team': 'blue', 'X-Goog-Api-Key': 'not-this-one' },
    model: 'gemini-2.5-flash',
  });
  const { context, request, failure } = harness;
  let provider: ModelProvider;
  let server: GoogleServer;
  beforeEach(() => {
    provider = harness.provider;
    server = harness.server;
  });

  it('sends a two-turn tool loop as Gemini contents, field by field, with call ids stable per turn', async () => {
    server.enqueue({ toolCalls: [{ name: 'read_file', args: { path: 'a.txt' } }], text: 'Reading it.', usage: { input: 40, output: 12 } }, { text: 'a.txt says hello' });
    const first = request({ instructions: 'Be brief.', tools: [READ_TOOL], maxOutputTokens: 512 });
    const turn1 = await provider.call(first, context());
    expect(turn1).to.deep.include({
      content: [{ type: 'text', text: 'Reading it.' }, { type: 'tool_call', id: 'call_1_1', name: 'read_file', input: { path: 'a.txt' } }],
      finishReason: 'tool_calls',
      model: 'gemini-test',
    });
    expect(turn1.usage).to.deep.equal({ inputTokens: 40, outputTokens: 12, totalTokens: 52 });
    expect(turn1.responseId).to.match(/^r\d+$/);

    const second: ModelRequest = {
      ...first,
      messages: [
        ...first.messages,
        { role: 'assistant', content: [{ type: 'text', text: 'Reading it.' }, { type: 'tool_call', id: 'call_1_1', name: 'read_file', input: { path: 'a.txt' } }] },
        { role: 'tool', content: [{ type: 'tool_result', callId: 'call_1_1', name: 'read_file', output: { content: 'hello' } }, { type: 'tool_result', callId: 'call_1_2', name: 'count', output: 3 }] },
      ],
    };
    const turn2 = await provider.call(second, context({ sequence: 2 }));
    expect(turn2.content).to.deep.equal([{ type: 'text', text: 'a.txt says hello' }]);
    expect(turn2.finishReason).to.equal('complete');

    expect(server.requests).to.have.length(2);
    const [one, two] = server.requests;
    expect(one!.method).to.equal('POST');
    expect(one!.path).to.equal('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(one!.headers['content-type']).to.equal('application/json');
    expect(one!.headers['x-team']).to.equal('blue');
    expect(one!.headers.authorization).to.equal(undefined);
    // Gemini refuses additionalProperties: the declaration is sent without it.
    const tools = [{ functionDeclarations: [{ name: 'read_file', description: 'Reads a workspace file', parameters: GEMINI_READ_PARAMETERS }] }];
    const user = { role: 'user', parts: [{ text: 'Summarise a.txt' }] };
    const systemInstruction = { parts: [{ text: 'Be brief.' }] };
    expect(one!.body).to.deep.equal({ systemInstruction, contents: [user], tools, generationConfig: { maxOutputTokens: 512 } });
    expect(two!.body).to.deep.equal({
      systemInstruction,
      contents: [
        user,
        { role: 'model', parts: [{ text: 'Reading it.' }, { functionCall: { name: 'read_file', args: { path: 'a.txt' } } }] },
        // An output that is not an object is wrapped: Gemini's response must be one.
        { role: 'user', parts: [{ functionResponse: { name: 'read_file', response: { content: 'hello' } } }, { functionResponse: { name: 'count', response: { value: 3 } } }] },
      ],
      tools,
      generationConfig: { maxOutputTokens: 512 },
    });
  });

  it('asks for structured output with a schema stripped to what Gemini takes, and maps effort to a thinking budget', async () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { answer: { type: 'integer', minimum: 0 }, tags: { type: 'array', items: { type: 'object', properties: { name: { type: ['string', 'null'] } }, additionalProperties: false } } },
      required: ['answer'],
      additionalProperties: false,
    };
    server.enqueue({ json: { answer: 42 } }, { text: 'thought', thought: 'hidden reasoning', usage: { input: 5, output: 3, thoughts: 20, cached: 2 } });
    const answer = await provider.call(request({ structuredOutput: schema, reasoning: { effort: 'high' } }), context());
    expect(answer.content).to.deep.equal([{ type: 'text', text: '{"answer":42}' }]);
    // Thought parts are not text: they are skipped.
    const thought = await provider.call(request({ reasoning: { effort: 'none' } }), context());
    expect(thought.content).to.deep.equal([{ type: 'text', text: 'thought' }]);
    expect(thought.usage).to.deep.equal({ inputTokens: 5, outputTokens: 3, totalTokens: 28, reasoningTokens: 20, cacheReadTokens: 2 });

    const [body, none] = server.requests.map((item) => item.body as Record<string, unknown>);
    expect(body).to.deep.equal({
      contents: [{ role: 'user', parts: [{ text: 'Summarise a.txt' }] }],
      generationConfig: {
        maxOutputTokens: 256,
        responseMimeType: 'application/json',
        responseSchema: {
          type: 'object',
          properties: { answer: { type: 'integer', minimum: 0 }, tags: { type: 'array', items: { type: 'object', properties: { name: { type: 'string', nullable: true } } } } },
          required: ['answer'],
        },
        thinkingConfig: { thinkingBudget: 16384 },
      },
    });
    expect(none!.generationConfig).to.deep.equal({ maxOutputTokens: 256, thinkingConfig: { thinkingBudget: 0 } });
  });

  it('maps several tool calls, MAX_TOKENS, refusals and a blocked prompt', async () => {
    server.enqueue(
      { toolCalls: [{ name: 'read_file', args: { path: 'a' } }, { name: 'read_file', args: { path: 'b' } }] },
      { finish: 'MAX_TOKENS', text: 'The summary is', toolCalls: [{ name: 'read_file', args: { path: 'c' } }] },
      { finish: 'SAFETY' },
      { finish: 'RECITATION', text: 'partial' },
      { blocked: 'PROHIBITED_CONTENT' },
      { finish: 'MALFORMED_FUNCTION_CALL' },
    );
    const three = request({ messages: [...request().messages, { role: 'assistant', content: [{ type: 'text', text: 'hm' }] }, { role: 'user', content: [{ type: 'text', text: 'go on' }] }] });
    const calls = await provider.call(three, context());
    expect(calls.finishReason).to.equal('tool_calls');
    expect(calls.content).to.deep.equal([
      { type: 'tool_call', id: 'call_3_1', name: 'read_file', input: { path: 'a' } },
      { type: 'tool_call', id: 'call_3_2', name: 'read_file', input: { path: 'b' } },
    ]);
    // A call in an answer cut off by the token limit is dropped: it is never run.
    const cut = await provider.call(request(), context());
    expect([cut.finishReason, cut.content]).to.deep.equal(['max_tokens', [{ type: 'text', text: 'The summary is' }]]);
    expect((await provider.call(request(), context())).finishReason).to.equal('refusal');
    expect((await provider.call(request(), context())).finishReason).to.equal('refusal');
    const blocked = await provider.call(request(), context());
    expect([blocked.finishReason, blocked.content, blocked.usage]).to.deep.equal(['refusal', [], { inputTokens: 9, outputTokens: 0, totalTokens: 9 }]);
    const malformed = await failure(provider.call(request(), context()));
    expect([malformed.outcome, malformed.code, malformed.message]).to.deep.equal(['failed', 'AGENTCTL_E_PROVIDER_RESPONSE_INVALID', 'google answer: finishReason MALFORMED_FUNCTION_CALL is not an answer agentctl can use']);
  });

  it('reports 429 and 5xx as failed AGENTCTL_E_PROVIDER_UNAVAILABLE, retryable', async () => {
    server.enqueue({ error: 503, status: 'UNAVAILABLE' }, { error: 429, status: 'RESOURCE_EXHAUSTED' });
    const unavailable = await failure(provider.call(request(), context()));
    expect([unavailable.outcome, unavailable.code, unavailable.message]).to.deep.equal(['failed', 'AGENTCTL_E_PROVIDER_UNAVAILABLE', 'google answered 503 (UNAVAILABLE)']);
    expect(unavailable.exitCode).to.equal(6);
    const limited = await failure(provider.call(request(), context()));
    expect([limited.outcome, limited.code, limited.message]).to.deep.equal(['failed', 'AGENTCTL_E_PROVIDER_UNAVAILABLE', 'google answered 429 (RESOURCE_EXHAUSTED)']);
  });

  it('reports another 4xx as failed AGENTCTL_E_PROVIDER_REJECTED, naming the status and error status only', async () => {
    server.enqueue({ error: 400, status: 'INVALID_ARGUMENT', message: 'Invalid value at system_instruction: TOP-SECRET-PLAN' });
    const rejected = await failure(provider.call(request({ instructions: 'TOP-SECRET-PLAN' }), context()));
    expect([rejected.outcome, rejected.code, rejected.message]).to.deep.equal(['failed', 'AGENTCTL_E_PROVIDER_REJECTED', 'google answered 400 (INVALID_ARGUMENT)']);
    expect(rejected.details).to.deep.equal({ status: 400 });
    expect(JSON.stringify(rejected.diagnostics)).not.to.contain('TOP-SECRET').and.not.to.contain('Summarise');
    expect(rejected.diagnostics[0]).to.deep.include({ plugin: 'builtin.provider.google', hook: 'provider:google' });
  });

  harness.transportCases();

  it('reports an answer it cannot read as failed AGENTCTL_E_PROVIDER_RESPONSE_INVALID', async () => {
    server.enqueue(
      { raw: '{"candidates": [' },
      { raw: JSON.stringify({ candidates: [{ content: { parts: [{ text: 'hi' }] }, finishReason: 'STOP' }] }) },
      { raw: JSON.stringify({ usageMetadata: { promptTokenCount: 1 } }) },
      { raw: `{"pad": "${'x'.repeat(4 * 1024 * 1024)}"}` },
    );
    const messages: string[] = [];
    for (let index = 0; index < 4; index += 1) {
      const invalid = await failure(provider.call(request(), context()));
      expect([invalid.outcome, invalid.code], invalid.message).to.deep.equal(['failed', 'AGENTCTL_E_PROVIDER_RESPONSE_INVALID']);
      messages.push(invalid.message);
    }
    expect(messages.slice(0, 3)).to.deep.equal([
      'google answer: the body is not JSON (16 bytes)',
      'google answer: usageMetadata: Invalid input: expected object, received undefined',
      'google answer: no candidate and no promptFeedback.blockReason',
    ]);
    expect(messages[3]).to.contain('larger than 4194304 bytes');
  });

  it('fails without sending when no credential was resolved', async () => {
    const missing = await failure(provider.call(request(), context({ credential: undefined })));
    expect([missing.outcome, missing.code]).to.deep.equal(['failed', 'AGENTCTL_E_PROVIDER_CREDENTIAL_MISSING']);
    expect(server.requests).to.have.length(0);
  });

  it('takes no providerOptions', () => {
    const schema = provider.optionsSchema!;
    expect(schema.safeParse({}).success).to.equal(true);
    const unknown = schema.safeParse({ safetySettings: [] });
    expect(unknown.error!.issues[0]).to.deep.include({ code: 'unrecognized_keys', keys: ['safetySettings'] });
  });

  it('declares its capabilities, credential variable and the URL it reaches', () => {
    expect(provider.capabilities).to.deep.equal({ tools: true, structuredOutput: true, reasoning: true, streaming: false });
    expect(provider.credentialVariable).to.equal('GEMINI_API_KEY');
    expect(provider.urls!({ name: 'main', kind: 'google' })).to.deep.equal(['https://generativelanguage.googleapis.com/v1beta/models']);
    expect(provider.urls!({ name: 'local', kind: 'google', endpoint: 'http://127.0.0.1:8080/v1beta/models' })).to.deep.equal(['http://127.0.0.1:8080/v1beta/models']);
  });
});
