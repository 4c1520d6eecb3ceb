import { jsonRpcMessages, serverSentEventData } from '@agentctl/sdk';
import { expect } from 'chai';
import { ActionKindTester } from '@agentctl/cli/testing';
import { sameOrigin } from './connection.js';
import { taskOf, taskState } from './observe.js';
import { a2aPeersSection, inputSchemaFor } from './schema.js';

// Without spec.a2aPeers no peer can be named; the delegations themselves are in test/cases/a2a.test.ts.
new ActionKindTester().run('a2a.delegate', {
  valid: [],
  invalid: [
    { name: 'a peer the plan does not declare', input: { peer: 'local', messageId: 'm-1', message: 'hi' }, error: { code: 'AGENTCTL_E_SCHEMA', message: 'spec.a2aPeers declares no peer' } },
    { name: 'an action field (the kind has none)', action: { stream: true }, error: { code: 'AGENTCTL_E_UNKNOWN_FIELD' } },
  ],
});

describe('a2a.delegate messages, states, origins and input', () => {
  it('reads the data of each event of a stream and keeps JSON-RPC 2.0 objects only', () => {
    expect(serverSentEventData(': comment\nevent: message\ndata: {"a":\ndata: 1}\n\ndata:{"b":2}')).to.deep.equal(['{"a":\n1}', '{"b":2}']);
    const stream = 'data: {"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t","status":{}}}}\n\ndata: [1]\n\n';
    expect(jsonRpcMessages({ headers: { 'content-type': 'text/event-stream' }, body: Buffer.from(stream) })).to.have.length(1);
    expect(jsonRpcMessages({ headers: { 'content-type': 'application/json' }, body: Buffer.from('not json') })).to.deep.equal([]);
  });

  it('names task states in one vocabulary, whichever revision the peer speaks', () => {
    expect(['TASK_STATE_COMPLETED', 'completed', 'TASK_STATE_INPUT_REQUIRED', 'input-required', 'TASK_STATE_CANCELED'].map((state) => taskState({ id: 't', status: { state } }))).to.deep.equal(['completed', 'completed', 'input_required', 'input_required', 'canceled']);
    expect(taskState({ id: 't' })).to.equal(undefined);
    expect(taskOf({ task: { id: 't', status: {} } })).to.deep.equal({ id: 't', status: {} });
    expect(taskOf({ id: 't', status: {} })).to.deep.equal({ id: 't', status: {} });
    expect(taskOf({ messageId: 'm' })).to.equal(undefined);
  });

  it('compares origins by scheme, host and effective port', () => {
    expect(sameOrigin('https://agent.example/.well-known/agent-card.json', 'https://agent.example:443/a2a')).to.equal(true);
    expect(sameOrigin('http://127.0.0.1:8766/card', 'http://127.0.0.1:8767/a2a')).to.equal(false);
    expect(sameOrigin('http://agent.example/card', 'https://agent.example/a2a')).to.equal(false);
    expect(sameOrigin('http://agent.example/card', 'not a url')).to.equal(false);
  });

  it('checks the peer against the plan', () => {
    const sections = { a2aPeers: a2aPeersSection.schema.parse({ local: { cardUrl: 'http://127.0.0.1:8766/.well-known/agent-card.json' } }) };
    expect(inputSchemaFor(sections).safeParse({ peer: 'local', messageId: 'm-1', message: 'hi' }).success).to.equal(true);
    const unknown = inputSchemaFor(sections).safeParse({ peer: 'remote', messageId: 'm-1', message: 'hi' });
    expect(unknown.success).to.equal(false);
    expect(JSON.stringify(unknown.error?.issues)).to.contain('unknown A2A peer \\"remote\\"; declared peers: local');
    expect(a2aPeersSection.schema.parse({ local: { cardUrl: 'https://agent.example/card' } }).local).to.deep.equal({ cardUrl: 'https://agent.example/card', headers: {}, timeoutSeconds: 120, maxPolls: 100, pollIntervalMs: 100, protocolVersion: '1.0' });
    expect(a2aPeersSection.schema.safeParse({ local: { cardUrl: 'https://agent.example/card', headers: { 'A2A-Version': { env: 'X' } } } }).success).to.equal(false);
  });
});
