// The OpenTelemetry pack on an agent's run, through the real CLI, a local OpenAI-format server and a real OTLP
// receiver: model turns follow the GenAI semantic conventions, a tool call is a child of its turn and what the tool
// performs a child of the call, the provider's request carries a traceparent naming its turn's span, and a canary
// secret (the provider's credential, and a task's environment) is in no byte exported, protobuf or JSON.
import { expect } from 'chai';
import { stringify } from 'yaml';
import { actionTool } from '../support/agents.js';
import { baseEnv, runCliAsync, workspace } from '../support/cli.js';
import { startOpenAiServer, type OpenAiServer } from '../support/openai-server.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { outcome, rows, unique } from './helpers.js';

describe('telemetry: model turns and tool calls', function () {
  this.timeout(120_000);
  let ws: ReturnType<typeof workspace>;
  let server: OpenAiServer;
  let receiver: OtlpReceiver;
  let canary: string;
  beforeEach(async () => {
    ws = workspace();
    server = await startOpenAiServer();
    receiver = await startOtlpReceiver();
    canary = unique('sk-canary-');
  });
  afterEach(async () => {
    await server.close();
    await receiver.close();
    ws.cleanup();
  });

  const document = () =>
    stringify({
      apiVersion: 'agentctl.dev/v1',
      kind: 'Workflow',
      metadata: { name: 'traced-agent' },
      spec: {
        providers: { openai: { kind: 'openai', endpoint: server.url } },
        policy: {
          approval: 'never',
          processAllowlist: ['sh'],
          environmentAllowlist: ['TRACEPARENT', 'TOKEN'],
          networkAllowlist: ['127.0.0.1'],
          network: { allowedSchemes: ['http'], allowedPorts: [Number(new URL(server.url).port)], allowPrivate: true },
        },
        actions: { print: { kind: 'builtin.shell.exec', command: 'sh', args: ['-c', 'printenv TRACEPARENT; echo "token $TOKEN"'], env: { TOKEN: { env: 'CANARY' } } } },
        tools: {
          print_tool: actionTool('print', { description: 'Print the trace context.' }),
        },
        agents: { analyst: { provider: 'openai', model: 'gpt-5-mini', instructions: 'Be brief.', tools: ['print_tool'], timeoutSeconds: 10 } },
        tasks: [
          { id: 'ask', uses: 'agent:analyst', with: { prompt: 'Print the trace context.' } },
          { id: 'direct', uses: 'action:print', needs: ['ask'] },
        ],
      },
    });

  const run = async (protocol: string) => {
    server.enqueue({ toolCalls: [{ name: 'print_tool', arguments: {}, callId: 'call_1' }], usage: { input: 40, output: 9 } }, { text: 'Done.', usage: { input: 60, output: 3 } });
    const env = baseEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: protocol, OPENAI_API_KEY: canary, CANARY: canary });
    const result = await runCliAsync(['run', ws.write('wf.yaml', document()), '--db', ws.db, '--output', 'json'], { cwd: ws.dir, env });
    const done = outcome(result, 0);
    await receiver.waitFor((span) => span.traceId === done.data.traceId && span.parentSpanId === '');
    return { done, result, spans: receiver.spans.filter((span) => span.traceId === done.data.traceId) };
  };
  const parentOf = (spans: ReceivedSpan[], span: ReceivedSpan) => spans.find((candidate) => candidate.spanId === span.parentSpanId);

  it('chat spans carry the GenAI attributes; the tool call is a child of its turn, its process a child of the call; the request names its turn', async () => {
    const { done, spans } = await run('http/protobuf');
    const traceId = done.data.traceId as string;
    const turns = spans.filter((span) => span.name === 'chat gpt-5-mini').sort((a, b) => (a.startNs < b.startNs ? -1 : 1));
    expect(turns).to.have.length(2);
    const [first, second] = turns as [ReceivedSpan, ReceivedSpan];
    expect(first.kind).to.equal(3); // SPAN_KIND_CLIENT
    expect(first.attributes).to.include({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.system': 'openai',
      'gen_ai.request.model': 'gpt-5-mini',
      'gen_ai.usage.input_tokens': 40,
      'gen_ai.usage.output_tokens': 9,
      'agentctl.effect.operation': 'model.request',
    });
    expect(first.attributes['gen_ai.response.finish_reasons']).to.deep.equal(['tool_calls']);
    expect(second.attributes).to.include({ 'gen_ai.usage.input_tokens': 60, 'gen_ai.usage.output_tokens': 3 });
    expect(second.attributes['gen_ai.response.finish_reasons']).to.deep.equal(['stop']);
    expect(parentOf(spans, first)?.name).to.equal('task ask');

    const call = spans.find((span) => span.name === 'execute_tool print_tool')!;
    expect(call.parentSpanId).to.equal(first.spanId);
    expect(call.attributes).to.include({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'print_tool', 'gen_ai.tool.call.id': 'call_1' });
    const performed = spans.filter((span) => span.name === 'process.exec');
    expect(performed).to.have.length(2);
    const byTool = performed.find((span) => span.parentSpanId === call.spanId)!;
    expect(byTool, JSON.stringify(performed.map((span) => parentOf(spans, span)?.name))).to.not.equal(undefined);
    expect(parentOf(spans, performed.find((span) => span !== byTool)!)?.name).to.equal('task direct');

    expect(server.requests[0]!.headers.traceparent).to.equal(`00-${traceId}-${first.spanId}-01`);
    expect(server.requests[1]!.headers.traceparent).to.equal(`00-${traceId}-${second.spanId}-01`);
    const outputs = rows(ws.db, "SELECT result_json FROM effects WHERE operation = 'process.exec' ORDER BY rowid").map((row) => JSON.parse(row.result_json).stdout as string);
    expect(outputs[0]!.split('\n')[0]).to.equal(`00-${traceId}-${byTool.spanId}-01`);
  });

  for (const protocol of ['http/protobuf', 'http/json']) {
    it(`the canary secret is in no exported byte (${protocol})`, async () => {
      const { result } = await run(protocol);
      expect(receiver.bodies.length).to.be.greaterThan(0);
      expect(server.requests[0]!.headers.authorization).to.equal(`Bearer ${canary}`);
      for (const body of receiver.bodies) {
        expect(body.bytes.includes(Buffer.from(canary)), 'exported bytes').to.equal(false);
        expect(body.bytes.includes(Buffer.from(canary, 'utf16le')), 'exported bytes (UTF-16)').to.equal(false);
        expect(JSON.stringify(body.headers)).to.not.contain(canary);
      }
      expect(result.stdout + result.stderr).to.not.contain(canary);
    });
  }
});
