// The anthropic, google and azure_openai provider kinds end to end: the CLI against a local server speaking each
// wire format, through the real network policy client (http to 127.0.0.1, allowPrivate). For each: a two-turn tool
// loop, a 503 retried, a 400 that fails the run, a hang left uncertain, and a canary credential that reaches its
// header and nothing else.
import { expect } from 'chai';
import { stringify } from 'yaml';
import { baseEnv, runCliAsync, workspace } from '../support/cli.js';
import { READ_TOOL } from '../support/agents.js';
import { startAnthropicServer } from '../support/anthropic-server.js';
import { startGoogleServer } from '../support/google-server.js';
import { startOpenAiServer } from '../support/openai-server.js';
import type { RecordedRequest } from '../support/scripted-server.js';
import { assertNoCanary as assertNoCanaryIn, diagnosticWithCode, errorDocument, outcome, rows, unique } from './helpers.js';

/** What the cases need of one provider kind: its server, its scripted replies and where its wire format puts things. */
interface Flavour {
  readonly kind: string;
  readonly variable: string;
  /** The header that carries the credential, and its value for a credential. */
  readonly header: string;
  headerValue(credential: string): string;
  start(): Promise<{ url: string; requests: RecordedRequest[]; enqueue(...replies: never[]): void; close(): Promise<void> }>;
  /** Replies: a call of read_note on note.txt, a final text, a 503, a 400 quoting the request, a hang. */
  readonly replies: { toolCall: unknown; text: unknown; unavailable: unknown; rejected: unknown; hang: unknown };
  /** The path every request is sent to. */
  readonly path: string;
  /** The tool result of the second request, parsed. */
  toolResult(body: any): { callId?: string; output: any };
}

const QUOTE = 'echo: Be brief. What does the note say?';

const FLAVOURS: Flavour[] = [
  {
    kind: 'anthropic',
    variable: 'ANTHROPIC_API_KEY',
    header: 'x-api-key',
    headerValue: (credential) => credential,
    start: startAnthropicServer as Flavour['start'],
    replies: {
      toolCall: { toolCalls: [{ name: 'read_note', input: { path: 'note.txt' }, id: 'toolu_1' }] },
      text: { text: 'The note says NOTE_FROM_FILE.', usage: { input: 40, output: 9 } },
      unavailable: { error: 503, type: 'api_error' },
      rejected: { error: 400, type: 'invalid_request_error', message: QUOTE },
      hang: { hang: true },
    },
    path: '/v1/messages',
    toolResult: (body) => {
      const block = body.messages[2].content[0];
      expect(body.messages[1].content).to.deep.equal([{ type: 'tool_use', id: 'toolu_1', name: 'read_note', input: { path: 'note.txt' } }]);
      return { callId: block.tool_use_id, output: JSON.parse(block.content) };
    },
  },
  {
    kind: 'google',
    variable: 'GEMINI_API_KEY',
    header: 'x-goog-api-key',
    headerValue: (credential) => credential,
    start: startGoogleServer as Flavour['start'],
    replies: {
      toolCall: { toolCalls: [{ name: 'read_note', args: { path: 'note.txt' } }] },
      text: { text: 'The note says NOTE_FROM_FILE.', usage: { input: 40, output: 9 } },
      unavailable: { error: 503, status: 'UNAVAILABLE' },
      rejected: { error: 400, status: 'INVALID_ARGUMENT', message: QUOTE },
      hang: { hang: true },
    },
    path: '/v1beta/models/test-model:generateContent',
    toolResult: (body) => {
      expect(body.contents[1]).to.deep.equal({ role: 'model', parts: [{ functionCall: { name: 'read_note', args: { path: 'note.txt' } } }] });
      return { output: body.contents[2].parts[0].functionResponse.response };
    },
  },
  {
    kind: 'azure_openai',
    variable: 'AZURE_OPENAI_API_KEY',
    header: 'api-key',
    headerValue: (credential) => credential,
    start: startOpenAiServer as Flavour['start'],
    replies: {
      toolCall: { toolCalls: [{ name: 'read_note', arguments: { path: 'note.txt' }, callId: 'call_1' }] },
      text: { text: 'The note says NOTE_FROM_FILE.', usage: { input: 40, output: 9 } },
      unavailable: { error: 503, type: 'server_error' },
      rejected: { error: 400, type: 'invalid_request_error', message: QUOTE },
      hang: { hang: true },
    },
    path: '/v1/responses?api-version=v1',
    toolResult: (body) => {
      expect(body.input[1]).to.deep.equal({ type: 'function_call', call_id: 'call_1', name: 'read_note', arguments: '{"path":"note.txt"}' });
      return { callId: body.input[2].call_id, output: JSON.parse(body.input[2].output) };
    },
  },
];

for (const flavour of FLAVOURS) {
  describe(`agents of provider kind ${flavour.kind} against a local server`, function () {
    this.timeout(120_000);
    let ws: ReturnType<typeof workspace>;
    let server: Awaited<ReturnType<Flavour['start']>>;
    let canary: string;
    beforeEach(async () => {
      ws = workspace();
      ws.write('note.txt', 'NOTE_FROM_FILE\n');
      server = await flavour.start();
      canary = unique('canary-');
    });
    afterEach(async () => {
      await server.close();
      ws.cleanup();
    });

    const enqueue = (...replies: unknown[]) => server.enqueue(...(replies as never[]));
    const document = (agent: Record<string, unknown> = {}, endpoint: string | null = server.url) =>
      stringify({
        apiVersion: 'agentctl.dev/v1',
        kind: 'Workflow',
        metadata: { name: `${flavour.kind}-agent` },
        spec: {
          providers: { model: { kind: flavour.kind, ...(endpoint === null ? {} : { endpoint }) } },
          policy: { approval: 'never', networkAllowlist: ['127.0.0.1'], network: { allowedSchemes: ['http'], allowedPorts: [Number(new URL(server.url).port)], allowPrivate: true } },
          tools: { read_note: READ_TOOL },
          agents: { analyst: { provider: 'model', model: 'test-model', instructions: 'Be brief.', tools: ['read_note'], timeoutSeconds: 10, ...agent } },
          tasks: [{ id: 'ask', uses: 'agent:analyst', with: { prompt: 'What does the note say?' } }],
        },
      });
    const cli = (args: string[]) => runCliAsync([...args, '--db', ws.db, '--output', 'json'], { cwd: ws.dir, env: baseEnv({ [flavour.variable]: canary }) });
    const run = (agent?: Record<string, unknown>) => cli(['run', ws.write('wf.yaml', document(agent))]);

    const assertNoCanary = (...outputs: string[]) => assertNoCanaryIn(canary, ws.dir, ...outputs);

    it('a two-turn tool loop succeeds; the tool result goes back in the wire format; the credential is only in its header', async () => {
      enqueue(flavour.replies.toolCall, flavour.replies.text);
      const result = await run();
      const done = outcome(result, 0);
      expect(done.data.state).to.equal('succeeded');
      expect(done.data.usage).to.deep.equal({ providerRequests: 2, toolCalls: 1, inputTokens: 51, outputTokens: 16, totalTokens: 67 });
      expect(server.requests.map((request) => request.path)).to.deep.equal([flavour.path, flavour.path]);
      for (const request of server.requests) {
        expect(request.headers[flavour.header]).to.equal(flavour.headerValue(canary));
        const { [flavour.header]: _credential, ...others } = request.headers;
        expect(JSON.stringify([request.path, others, request.body])).to.not.contain(canary);
      }
      const result2 = flavour.toolResult(server.requests[1]!.body);
      expect(result2.output).to.include({ path: 'note.txt', content: 'NOTE_FROM_FILE\n' });
      const inspected = await cli(['inspect', done.data.runId]);
      expect(outcome(inspected, 0).data.effects.map((effect: any) => effect.operation)).to.deep.equal(['model.request', 'tool.call', 'model.request']);
      assertNoCanary(result.stdout, result.stderr, inspected.stdout, inspected.stderr);
    });

    it('a 503 then a success is retried within the agent retry budget', async () => {
      enqueue(flavour.replies.unavailable, flavour.replies.text);
      const done = outcome(await run({ tools: [], retry: { maxAttempts: 2 } }), 0);
      expect(server.requests).to.have.length(2);
      expect(rows(ws.db, 'SELECT state FROM effects WHERE run_id = ? ORDER BY rowid', done.data.runId).map((row) => row.state)).to.deep.equal(['failed', 'succeeded']);
    });

    it('a 400 fails the run with exit 6, once, and its message carries no request content', async () => {
      enqueue(flavour.replies.rejected);
      const result = await run({ tools: [], retry: { maxAttempts: 3 } });
      const found = diagnosticWithCode(errorDocument(result, 6), 'AGENTCTL_E_PROVIDER_REJECTED');
      expect(found.message).to.contain(`${flavour.kind} answered 400`).and.not.to.contain('Be brief');
      expect(server.requests).to.have.length(1);
      assertNoCanary(result.stdout, result.stderr);
    });

    it('a server that hangs past timeoutSeconds leaves the request uncertain and fails the run (exit 4), sent once', async () => {
      enqueue(flavour.replies.hang);
      diagnosticWithCode(errorDocument(await run({ tools: [], timeoutSeconds: 3, retry: { maxAttempts: 3 } }), 4), 'AGENTCTL_E_PROVIDER_UNCERTAIN');
      expect(rows(ws.db, 'SELECT state FROM effects').map((row) => row.state)).to.deep.equal(['uncertain']);
      expect(server.requests).to.have.length(1);
    });

    if (flavour.kind === 'azure_openai') {
      it('check refuses an azure_openai provider without endpoint', async () => {
        const checked = await runCliAsync(['check', ws.write('wf.yaml', document({}, null)), '--output', 'json'], { cwd: ws.dir, env: baseEnv({ [flavour.variable]: canary }) });
        const failed = errorDocument(checked, 2);
        expect(diagnosticWithCode(failed, 'AGENTCTL_E_AGENT_INVALID')).to.deep.include({ path: 'spec.providers.model', message: 'provider model (kind azure_openai) needs an endpoint' });
      });
    }
  });
}
