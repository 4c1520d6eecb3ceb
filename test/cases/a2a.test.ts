// a2a.delegate end to end: the CLI against a local A2A 1.0 peer (test/support/a2a-server.ts) through the real network
// policy client. Discovery and interface selection, polling and streaming observation, artifacts kept in the artifact
// store, replay, every refusal the peer can cause, the 401 refresh and a canary header secret. The durable cases are
// in a2a-recovery.test.ts.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { baseEnv, runCliAsync } from '../support/cli.js';
import { A2A_VERSION } from '../support/a2a-server.js';
import { useA2aCase } from './a2a-case.js';
import { assertNoCanary, diagnosticWithCode, errorDocument, outcome, rows, runCount, unique } from './helpers.js';

const sha256 = (text: string | Buffer) => `sha256:${createHash('sha256').update(text).digest('hex')}`;

describe('a2a.delegate against a local A2A peer', function () {
  this.timeout(120_000);
  const h = useA2aCase();
  const { start, document, cli, run, effects, sent } = h;

  it('discovers the card, sends the message once, polls the task to completion and keeps its artifacts', async () => {
    const file = Buffer.from('a downloaded artifact\n');
    await start({
      workingObservations: 2,
      files: { 'result.bin': file },
      artifacts: [
        { artifactId: 'report', parts: [{ text: 'done', filename: 'report.txt' }, { data: { answer: 42 } }] },
        { artifactId: 'download', parts: [{ url: '{base}/files/result.bin', filename: 'result.bin' }, { raw: Buffer.from('raw bytes').toString('base64') }] },
      ],
    });
    const checked = await runCliAsync(['check', h.ws.write('wf.yaml', document()), '--output', 'json'], { cwd: h.ws.dir, env: baseEnv() });
    expect(outcome(checked, 0).ok).to.equal(true);
    const done = outcome(await run(), 0);
    expect(done.data.state).to.equal('succeeded');
    expect(h.server.methods()).to.deep.equal(['GET /.well-known/agent-card.json', 'SendMessage', 'GetTask', 'GetTask', 'GetTask', 'GET /files/result.bin']);
    const send = h.server.requests.find((request) => request.rpc === 'SendMessage')!;
    expect(send.headers['a2a-version']).to.equal(A2A_VERSION);
    expect(JSON.parse(send.body)).to.deep.include({ jsonrpc: '2.0', method: 'SendMessage', params: { message: { messageId: 'message-1', role: 'ROLE_USER', parts: [{ text: 'perform the bounded fixture task' }] } } });
    for (const request of h.server.requests.filter((item) => item.rpc === 'GetTask')) expect(JSON.parse(request.body).params).to.deep.equal({ id: 'task-1' });

    const inspected = outcome(await cli(['inspect', done.data.runId]), 0).data;
    const [task] = inspected.tasks;
    expect(task.output).to.deep.include({ id: 'task-1', status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-01-01T00:00:00Z' } });
    expect(inspected.effects.map((effect: any) => [effect.operation, effect.effectClass, effect.idempotency, effect.state])).to.deep.equal([['a2a.delegate', 'remote_agent', 'unknown', 'succeeded']]);
    expect(inspected.effects[0].input).to.deep.equal({ peer: 'local', cardUrl: h.server.cardUrl, protocolVersion: A2A_VERSION, messageId: 'message-1', message: 'perform the bounded fixture task', headers: {} });
    expect(inspected.artifacts.map((item: any) => [item.logicalPath, item.digest, item.sizeBytes])).to.deep.equal([
      ['a2a/download/download-1.bin', sha256('raw bytes'), 9],
      ['a2a/download/result.bin', sha256(file), file.length],
      ['a2a/report/report-1.json', sha256('{"answer":42}'), 13],
      ['a2a/report/report.txt', sha256('done'), 4],
    ]);
    const [call] = inspected.protocolCalls;
    expect(call).to.deep.include({ protocol: 'a2a', operation: 'a2a.delegate', callIdentity: 'message-1', remoteId: 'task-1', status: 'succeeded', generation: 1 });
    expect(call.state.protocolOperation).to.equal('SendMessage');
    expect(call.state.call).to.deep.include({ peer: 'local', messageId: 'message-1', status: 'succeeded', remoteTaskId: 'task-1', messageDigest: sha256('perform the bounded fixture task') });
    expect(inspected.protocolSessions).to.deep.equal([
      {
        runId: done.data.runId,
        taskId: 'delegate',
        protocol: 'a2a',
        endpoint: 'local',
        formatVersion: 1,
        state: { cardUrl: h.server.cardUrl, cardName: 'fixture-peer', interfaceUrl: `${h.server.base}/a2a`, protocolVersion: A2A_VERSION, streaming: false },
        updatedAt: inspected.protocolSessions[0].updatedAt,
      },
    ]);
    // The remote task id was committed before the first GetTask was sent.
    const types = inspected.audit.map((event: any) => event.type);
    expect(types.filter((type: string) => type === 'protocol.call_recorded').length).to.equal(3);
    expect(outcome(await cli(['effects', 'inspect', call.effectId]), 0).data.protocolCall).to.deep.equal(call);

    // A replay rebuilds the run from the record: the peer is not contacted.
    await h.server.close();
    const replayed = outcome(await cli(['replay', done.data.runId]), 0);
    expect(replayed.data.state).to.equal('succeeded');
    expect(outcome(await cli(['inspect', replayed.data.runId]), 0).data.tasks[0].output).to.deep.equal(task.output);
  });

  it('observes with SubscribeToTask when the card advertises streaming, folding status and artifact updates', async () => {
    await start({ streaming: true, workingObservations: 1 });
    const done = outcome(await run(), 0);
    expect(h.server.methods()).to.deep.equal(['GET /.well-known/agent-card.json', 'SendMessage', 'SubscribeToTask', 'SubscribeToTask']);
    const [task] = rows(h.ws.db, 'SELECT output_json FROM tasks').map((row) => JSON.parse(row.output_json));
    expect(task.status.state).to.equal('TASK_STATE_COMPLETED');
    expect(task.artifacts.map((artifact: any) => artifact.artifactId)).to.deep.equal(['report', 'numbers']);
    const inspected = outcome(await cli(['inspect', done.data.runId]), 0).data;
    expect(inspected.artifacts.map((item: any) => item.logicalPath)).to.deep.equal(['a2a/numbers/numbers-0.json', 'a2a/report/report.txt']);
  });

  it('under the default approval policy a delegation pauses for approval before anything is sent; approved, it runs once', async () => {
    await start();
    const paused = outcome(await run({ policy: { approval: 'mutations' } }), 3);
    expect(paused.data.state).to.equal('paused');
    expect(h.server.requests).to.deep.equal([]);
    const [approval] = outcome(await cli(['approvals', 'list', paused.data.runId]), 0).data;
    expect([approval.operation, approval.status]).to.deep.equal(['a2a.delegate', 'pending']);
    outcome(await cli(['approvals', 'approve', approval.approvalId, '--reason', 'the peer may take this']), 0);
    expect(outcome(await cli(['resume', paused.data.runId]), 0).data.state).to.equal('succeeded');
    expect(sent()).to.equal(1);
  });

  it('a peer answering with a message and no task: the output is the message', async () => {
    await start({ outcome: 'message' });
    outcome(await run(), 0);
    expect(h.server.methods()).to.deep.equal(['GET /.well-known/agent-card.json', 'SendMessage']);
    expect(rows(h.ws.db, 'SELECT output_json FROM tasks').map((row) => JSON.parse(row.output_json))).to.deep.equal([{ messageId: 'reply-message-1', role: 'ROLE_AGENT', parts: [{ text: 'answered directly' }] }]);
  });

  it('a remote task that fails fails the effect (exit 4), quoting its status message', async () => {
    await start({ outcome: 'failed' });
    const found = diagnosticWithCode(errorDocument(await run(), 4), 'AGENTCTL_E_A2A_TASK_FAILED');
    expect(found.message).to.contain('remote task task-1 ended failed: the fixture task could not be done');
    expect(effects().map((row) => row.state)).to.deep.equal(['failed']);
    expect(sent()).to.equal(1);
  });

  it('a card without a JSON-RPC interface of the pinned version: nothing is sent (exit 6)', async () => {
    await start({ protocolVersion: '0.3' });
    const found = diagnosticWithCode(errorDocument(await run(), 6), 'AGENTCTL_E_A2A_VERSION');
    expect(found.message).to.contain('advertises no JSONRPC interface of version 1.0 (it offers: JSONRPC 0.3)');
    expect(h.server.methods()).to.deep.equal(['GET /.well-known/agent-card.json']);
    expect(effects().map((row) => row.state)).to.deep.equal(['failed']);
  });

  it('a card without supportedInterfaces sends nothing (exit 6)', async () => {
    await start({ card: { name: 'no-interfaces', supportedInterfaces: [] } });
    expect(diagnosticWithCode(errorDocument(await run(), 6), 'AGENTCTL_E_A2A_CARD_INVALID').message).to.contain('has no name or no supportedInterfaces; no message was sent');
    expect(h.server.methods()).to.deep.equal(['GET /.well-known/agent-card.json']);
  });

  it('a JSON-RPC error or an HTTP error status answering SendMessage fails the effect once (exit 6)', async () => {
    await start({ refuseSend: { error: { code: -32005, message: 'ContentTypeNotSupportedError' } } });
    expect(diagnosticWithCode(errorDocument(await run(), 6), 'AGENTCTL_E_A2A_RPC_ERROR').message).to.contain('refused SendMessage with error -32005: ContentTypeNotSupportedError');
    await h.server.close();
    await start({ refuseSend: { status: 503 } });
    expect(diagnosticWithCode(errorDocument(await run(), 6), 'AGENTCTL_E_A2A_RESPONSE_INVALID').message).to.contain('answered SendMessage with HTTP 503');
    expect(effects().map((row) => row.state)).to.deep.equal(['failed', 'failed']);
    expect(sent()).to.equal(1);
  });

  it('an interface on another origin than the card is never contacted', async () => {
    const elsewhere = await start();
    await start({ interfaceUrl: () => `${elsewhere.base}/a2a` });
    diagnosticWithCode(errorDocument(await run(), 6), 'AGENTCTL_E_A2A_ORIGIN');
    expect(h.server.methods()).to.deep.equal(['GET /.well-known/agent-card.json']);
    expect(elsewhere.requests).to.deep.equal([]);
  });

  it('an artifact URL on another origin is not downloaded; a part over 16 MiB is refused', async () => {
    const elsewhere = await start({ files: { 'x.bin': Buffer.from('x') } });
    await start({ workingObservations: 0, artifacts: [{ artifactId: 'leak', parts: [{ url: `${elsewhere.base}/files/x.bin` }] }] });
    diagnosticWithCode(errorDocument(await run(), 6), 'AGENTCTL_E_A2A_ORIGIN');
    expect(elsewhere.requests).to.deep.equal([]);
    await h.server.close();

    await start({ workingObservations: 0, files: { 'big.bin': Buffer.alloc(16 * 1024 * 1024 + 1, 1) }, artifacts: [{ artifactId: 'big', parts: [{ url: '{base}/files/big.bin' }] }] });
    const found = diagnosticWithCode(errorDocument(await run({ network: { maxResponseBytes: 32 * 1024 * 1024 } }), 6), 'AGENTCTL_E_A2A_ARTIFACT_INVALID');
    expect(found.message).to.contain('larger than 16777216 bytes');
    expect(rows(h.ws.db, 'SELECT count(*) AS n FROM task_artifacts')[0].n).to.equal(0);
    // The peer holds the task: the effects are uncertain, never failed, so no retry sends the message again.
    expect(effects().map((row) => row.state)).to.deep.equal(['uncertain', 'uncertain']);
  });

  it('a 401 resolves the header secret again once: a rotated credential is used and neither value is recorded', async () => {
    const secrets = mkdtempSync(join(tmpdir(), 'agentctl-a2a-secret-'));
    try {
      const tokenFile = join(secrets, 'token');
      const old = unique('old-token-');
      const fresh = unique('new-token-');
      writeFileSync(tokenFile, `Bearer ${old}\n`);
      await start({
        authorization: () => `Bearer ${fresh}`,
        // The peer rotates the credential when the old one arrives, as an expiring token would be.
        onRequest: (request) => request.headers.authorization === `Bearer ${old}` && writeFileSync(tokenFile, `Bearer ${fresh}\n`),
      });
      const result = await run({ peer: { headers: { Authorization: { file: tokenFile } } }, policy: { secretFileRoots: [secrets] } });
      const done = outcome(result, 0);
      expect(h.server.requests.map((request) => request.headers.authorization)).to.deep.equal([`Bearer ${old}`, ...Array(h.server.requests.length - 1).fill(`Bearer ${fresh}`)]);
      expect(sent()).to.equal(1);
      const inspected = await cli(['inspect', done.data.runId]);
      assertNoCanary(old, h.ws.dir, result.stdout, result.stderr, inspected.stdout, inspected.stderr);
      assertNoCanary(fresh, h.ws.dir, result.stdout, result.stderr, inspected.stdout, inspected.stderr);
    } finally {
      rmSync(secrets, { recursive: true, force: true });
    }
  });

  it('a peer that keeps answering 401 is refused after one refresh: nothing is sent', async () => {
    await start({ authorization: () => 'Bearer never-this-value' });
    diagnosticWithCode(errorDocument(await run({ peer: { headers: { Authorization: { env: 'A2A_TOKEN' } } } }, { A2A_TOKEN: `Bearer ${unique('token-')}` }), 6), 'AGENTCTL_E_A2A_UNAUTHORIZED');
    expect(h.server.methods()).to.deep.equal(['GET /.well-known/agent-card.json', 'GET /.well-known/agent-card.json']);
  });

  it('a canary header secret reaches the peer and no byte of the database, its WAL, stdout or stderr', async () => {
    const canary = unique('canary-');
    await start({ authorization: () => `Bearer ${canary}`, workingObservations: 1 });
    const result = await run({ peer: { headers: { Authorization: { env: 'A2A_TOKEN' } } } }, { A2A_TOKEN: `Bearer ${canary}` });
    const done = outcome(result, 0);
    for (const request of h.server.requests) expect(request.headers.authorization).to.equal(`Bearer ${canary}`);
    const inspected = await cli(['inspect', done.data.runId]);
    const view = outcome(inspected, 0).data;
    expect(view.effects[0].input.headers).to.deep.equal({ Authorization: { secret: { env: 'A2A_TOKEN' } } });
    const human = await runCliAsync(['inspect', done.data.runId, '--db', h.ws.db], { cwd: h.ws.dir, env: baseEnv() });
    assertNoCanary(canary, h.ws.dir, result.stdout, result.stderr, inspected.stdout, inspected.stderr, human.stdout, human.stderr);
  });

  it('check refuses an unknown peer and an unknown peer field; preflight refuses a host outside the allowlist', async () => {
    await start();
    const check = async (text: string) => errorDocument(await runCliAsync(['check', h.ws.write('wf.yaml', text), '--output', 'json'], { cwd: h.ws.dir, env: baseEnv() }), 2);
    const unknownPeer = diagnosticWithCode(await check(document({ with: { peer: 'remote' } })), 'AGENTCTL_E_SCHEMA');
    expect(unknownPeer.path).to.equal('spec.tasks[0].with.peer');
    expect(unknownPeer.message).to.contain('unknown A2A peer "remote"; declared peers: local');
    const broken = await check(document({ peer: { bogus: true } }));
    expect(broken.diagnostics.map((item: any) => [item.code, item.path])).to.deep.equal([['AGENTCTL_E_UNKNOWN_FIELD', 'spec.a2aPeers.local.bogus']]);
    const denied = errorDocument(await run({ policy: { networkAllowlist: ['example.com'] } }), 3);
    expect(diagnosticWithCode(denied, 'AGENTCTL_E_NETWORK_DENIED').path).to.equal('spec.a2aPeers.local.cardUrl');
    expect(h.server.requests).to.deep.equal([]);
    expect(runCount(h.ws.db)).to.equal(0);
  });
});
