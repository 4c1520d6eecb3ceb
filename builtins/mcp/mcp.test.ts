import { jsonRpcMessages, serverSentEventData } from '@agentctl/sdk';
import { expect } from 'chai';
import { ActionKindTester } from '@agentctl/cli/testing';
import { inputSchemaFor, mcpServersSection } from './schema.js';

// Without spec.mcpServers no server can be named; the calls themselves are in test/cases/mcp.test.ts.
new ActionKindTester().run('mcp.call', {
  valid: [],
  invalid: [
    { name: 'a server the plan does not declare', input: { server: 'docs', tool: 'search' }, error: { code: 'AGENTCTL_E_SCHEMA', message: 'spec.mcpServers declares no server' } },
    { name: 'an unknown action field', action: { idempotency: 'idempotent', retries: 2 }, error: { code: 'AGENTCTL_E_UNKNOWN_FIELD' } },
    { name: 'an idempotency outside the enum', action: { idempotency: 'sometimes' }, error: { code: 'AGENTCTL_E_SCHEMA' } },
  ],
});

describe('mcp.call messages and input', () => {
  it('reads the data of each event of a stream, multi-line data joined, comments and other fields ignored', () => {
    const stream = ': keep-alive\r\nevent: message\r\ndata: {"a":\r\ndata: 1}\r\n\r\nid: 7\nretry: 10\ndata:{"b":2}\n\ndata: last';
    expect(serverSentEventData(stream)).to.deep.equal(['{"a":\n1}', '{"b":2}', 'last']);
  });

  it('takes JSON-RPC 2.0 objects only, from a JSON body or from an event stream', () => {
    const response = (type: string, text: string) => ({ headers: { 'content-type': type }, body: Buffer.from(text) });
    expect(jsonRpcMessages(response('application/json', '{"jsonrpc":"2.0","id":1,"result":{}}'))).to.deep.equal([{ jsonrpc: '2.0', id: 1, result: {} }]);
    expect(jsonRpcMessages(response('application/json', 'not json'))).to.deep.equal([]);
    const stream = 'data: {"jsonrpc":"2.0","method":"notifications/progress"}\n\ndata: [1]\n\ndata: {"jsonrpc":"2.0","id":2,"result":{"x":1}}\n\n';
    expect(jsonRpcMessages(response('text/event-stream; charset=utf-8', stream)).map((message) => message.id ?? message.method)).to.deep.equal(['notifications/progress', 2]);
  });

  it('checks the server against the plan, suggesting a close name', () => {
    const sections = { mcpServers: mcpServersSection.schema.parse({ fixture: { url: 'http://127.0.0.1:1/mcp' }, docs: { url: 'https://docs.example/mcp' } }) };
    const schema = inputSchemaFor(sections);
    expect(schema.parse({ server: 'docs', tool: 'search' })).to.deep.equal({ server: 'docs', tool: 'search', arguments: {} });
    const refused = schema.safeParse({ server: 'fixtrue', tool: 'probe' });
    expect(refused.success).to.equal(false);
    expect(refused.error!.issues[0]!.message).to.equal('unknown MCP server "fixtrue"; did you mean "fixture"? declared servers: fixture, docs');
  });

  it('defaults a server entry as the reference does, and refuses headers the client sets itself', () => {
    const servers = mcpServersSection.schema.parse({ fixture: { url: 'http://127.0.0.1:1/mcp' } });
    expect(servers).to.deep.equal({ fixture: { url: 'http://127.0.0.1:1/mcp', headers: {}, timeoutSeconds: 120, protocolVersion: '2025-11-25' } });
    expect(mcpServersSection.schema.safeParse({ fixture: { url: 'http://127.0.0.1:1/mcp', headers: { 'Mcp-Session-Id': { env: 'X' } } } }).success).to.equal(false);
    expect(mcpServersSection.schema.safeParse({ fixture: { url: 'ftp://127.0.0.1/mcp' } }).success).to.equal(false);
    expect(mcpServersSection.read({})).to.deep.equal({});
  });
});
