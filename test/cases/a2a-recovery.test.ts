// a2a.delegate when sight of the remote task is lost: the CLI against a local A2A 1.0 peer. A process killed while
// observing, a lost connection and used-up polls are followed by a resume that observes the same remote task and never
// sends the message twice; `effects continue-remote` records it applied, and `retry --failed` reuses it; an ambiguous
// send blocks every continuation; cancellation sends CancelTask.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { baseEnv, startCli } from '../support/cli.js';
import { useA2aCase } from './a2a-case.js';
import { diagnosticWithCode, errorDocument, finished, outcome, rows, waitFor } from './helpers.js';
import { expectNowhere } from './state-encryption-support.js';

describe('a2a.delegate: lost observation, continuation and ambiguous sends', function () {
  this.timeout(120_000);
  const h = useA2aCase();
  const { start, document, cli, run, effects, sent } = h;

  it('a task still running when maxPolls are used up is uncertain (exit 4); resume observes the same task', async () => {
    await start({ workingObservations: Infinity });
    const failed = errorDocument(await run({ peer: { maxPolls: 2 } }), 4);
    expect(diagnosticWithCode(failed, 'AGENTCTL_E_A2A_POLL_LIMIT').message).to.contain('still working after 2 observations');
    expect(effects().map((row) => row.state)).to.deep.equal(['uncertain']);
    h.server.finish();
    const resumed = outcome(await cli(['resume', failed.error.runId]), 0);
    expect(resumed.data.state).to.equal('succeeded');
    expect(sent()).to.equal(1);
    expect(effects().map((row) => row.state)).to.deep.equal(['succeeded']);
  });

  it('effects continue-remote observes the known task, keeps its artifacts and records it applied; resume continues with it', async () => {
    await start({ workingObservations: Infinity });
    const failed = errorDocument(await run({ peer: { maxPolls: 1 } }), 4);
    diagnosticWithCode(failed, 'AGENTCTL_E_A2A_POLL_LIMIT');
    const [effect] = effects();
    h.server.finish();
    const continued = outcome(await cli(['effects', 'continue-remote', effect.id, '--actor', 'ops']), 0);
    expect(continued.kind).to.equal('EffectReconciliation');
    expect(continued.data).to.deep.include({ effectId: effect.id, outcome: 'applied', actor: 'ops', reason: 'observed remote a2a task task-1 to its end with effects continue-remote' });
    expect(continued.data.result).to.deep.include({ id: 'task-1' });
    expect(continued.data.result.status.state).to.equal('TASK_STATE_COMPLETED');
    expect(rows(h.ws.db, 'SELECT path FROM task_artifacts ORDER BY path').map((row) => row.path)).to.deep.equal(['a2a/numbers/numbers-0.json', 'a2a/report/report.txt']);
    expect(continued.data.evidence).to.deep.include({ kind: 'remote_observation', protocol: 'a2a', remoteId: 'task-1' });
    expect(rows(h.ws.db, 'SELECT generation FROM protocol_calls')).to.deep.equal([{ generation: 2 }]);
    // Observed, never sent again; a second continuation is refused, as the effect is reconciled.
    expect(sent()).to.equal(1);
    diagnosticWithCode(errorDocument(await cli(['effects', 'continue-remote', effect.id]), 2), 'AGENTCTL_E_EFFECT_NOT_CONTINUABLE');
    const resumed = outcome(await cli(['resume', failed.error.runId]), 0);
    expect(resumed.data.state).to.equal('succeeded');
    expect(sent()).to.equal(1);
    expect(rows(h.ws.db, 'SELECT output_json FROM tasks').map((row) => JSON.parse(row.output_json).id)).to.deep.equal(['task-1']);
  });

  it('after effects continue-remote, retry --failed reuses the delegation with the observed task and runs only what follows', async () => {
    await start({ workingObservations: Infinity });
    const options = { peer: { maxPolls: 1 }, after: [{ id: 'report', uses: 'action:assign', needs: ['delegate'], with: { remoteTask: '${{ tasks.delegate.output.id }}' } }], outputs: { remoteTask: '${{ tasks.report.output.output.remoteTask }}' } };
    const failed = errorDocument(await run(options), 4);
    const [effect] = effects();
    // Before the continuation, a retry would send the at-most-once message again: it is refused.
    diagnosticWithCode(errorDocument(await cli(['retry', h.ws.file('wf.yaml'), failed.error.runId, '--failed']), 3), 'AGENTCTL_E_REPAIR_BLOCKED');
    h.server.finish();
    outcome(await cli(['effects', 'continue-remote', effect.id]), 0);
    const retried = outcome(await cli(['retry', h.ws.file('wf.yaml'), failed.error.runId, '--failed']), 0);
    expect(retried.data.state).to.equal('succeeded');
    expect(retried.data.output).to.deep.equal({ remoteTask: 'task-1' });
    expect(sent()).to.equal(1);
    const inspected = outcome(await cli(['inspect', retried.data.runId]), 0).data;
    expect(inspected.tasks.map((task: any) => [task.taskId, task.state, task.disposition])).to.deep.equal([['delegate', 'succeeded', 'reused'], ['report', 'succeeded', 'executed']]);
    expect(inspected.effects).to.deep.equal([]);
    expect(inspected.artifacts.map((item: any) => item.logicalPath)).to.deep.equal(['a2a/numbers/numbers-0.json', 'a2a/report/report.txt']);
  });

  it('effects continue-remote refuses an effect whose submission was ambiguous (no remote task id)', async () => {
    await start({ dropSendMessage: true });
    errorDocument(await run(), 4);
    const [effect] = effects();
    const refused = diagnosticWithCode(errorDocument(await cli(['effects', 'continue-remote', effect.id]), 2), 'AGENTCTL_E_EFFECT_NOT_CONTINUABLE');
    expect(refused.message).to.contain('recorded no remote task to observe');
    expect(sent()).to.equal(1);
    expect(rows(h.ws.db, 'SELECT count(*) AS n FROM reconciliations')[0].n).to.equal(0);
  });

  it('a process killed while observing: resume (with a rotated credential) observes the same remote task and never sends the message again', async () => {
    await start({ workingObservations: Infinity });
    const peer = { maxPolls: 100000, headers: { Authorization: { env: 'A2A_TOKEN' } } };
    const child = startCli(['run', h.ws.write('wf.yaml', document({ peer })), '--db', h.ws.db, '--output', 'json'], { cwd: h.ws.dir, env: baseEnv({ A2A_TOKEN: 'Bearer first-token-value' }) });
    const ended = finished(child);
    await waitFor('GetTask at the peer', () => h.server.methods().filter((method) => method === 'GetTask').length >= 2, 60_000);
    child.kill('SIGKILL');
    await ended;
    expect(effects().map((row) => row.state)).to.deep.equal(['started']);
    expect(rows(h.ws.db, 'SELECT call_identity, remote_id FROM protocol_calls')).to.deep.equal([{ call_identity: 'message-1', remote_id: 'task-1' }]);
    const [{ id: runId }] = rows(h.ws.db, 'SELECT id FROM runs');
    h.server.finish();
    const resumed = outcome(await cli(['resume', runId], { A2A_TOKEN: 'Bearer second-token-value' }), 0);
    expect(resumed.data.state).to.equal('succeeded');
    expect(sent()).to.equal(1);
    expect(h.server.requests.at(-1)!.headers.authorization).to.equal('Bearer second-token-value');
    const inspected = outcome(await cli(['inspect', runId]), 0).data;
    expect(inspected.tasks[0].output.id).to.equal('task-1');
    expect(inspected.audit.filter((event: any) => event.type === 'protocol.call_continued').map((event: any) => event.data)).to.deep.equal([{ protocol: 'a2a', operation: 'SendMessage', remoteId: 'task-1' }]);
    // The second process to take the call up is its second generation.
    expect(inspected.protocolCalls.map((call: any) => [call.callIdentity, call.remoteId, call.generation, call.status])).to.deep.equal([['message-1', 'task-1', 2, 'succeeded']]);
  });

  it('a connection lost while observing leaves the effect uncertain with its task known; resume observes it again', async () => {
    await start({ workingObservations: 2, dropGetTask: [1] });
    const failed = errorDocument(await run(), 6);
    expect(diagnosticWithCode(failed, 'AGENTCTL_E_NETWORK_FAILED').message).to.contain('the remote task is known and is observed again on resume');
    expect(effects().map((row) => row.state)).to.deep.equal(['uncertain']);
    const resumed = outcome(await cli(['resume', failed.error.runId]), 0);
    expect(resumed.data.state).to.equal('succeeded');
    expect(sent()).to.equal(1);
    expect(h.server.methods().filter((method) => method === 'GetTask').length).to.be.greaterThan(1);
  });

  it('an ambiguous send (the connection drops after SendMessage) is uncertain, sent once; resume refuses until reconciled', async () => {
    await start({ dropSendMessage: true });
    const failed = errorDocument(await run(), 4);
    diagnosticWithCode(failed, 'AGENTCTL_E_A2A_UNCERTAIN');
    expect(effects().map((row) => row.state)).to.deep.equal(['uncertain']);
    expect(rows(h.ws.db, 'SELECT remote_id FROM protocol_calls')).to.deep.equal([{ remote_id: null }]);
    diagnosticWithCode(errorDocument(await cli(['resume', failed.error.runId]), 3), 'AGENTCTL_E_EFFECT_UNRECONCILED');
    expect(sent()).to.equal(1);
  });

  it('the task deadline passing while it observes sends CancelTask and leaves the effect uncertain (exit 4)', async () => {
    await start({ workingObservations: Infinity });
    const failed = errorDocument(await run({ peer: { maxPolls: 100000 }, task: { timeoutSeconds: 2 } }), 4);
    diagnosticWithCode(failed, 'AGENTCTL_E_TASK_TIMEOUT');
    expect(h.server.methods()).to.include('CancelTask');
    expect(effects().map((row) => row.state)).to.deep.equal(['uncertain']);
    expect(sent()).to.equal(1);
  });

  it('a run cancelled while it observes sends CancelTask and leaves the effect uncertain', async () => {
    await start({ workingObservations: Infinity });
    const child = startCli(['run', h.ws.write('wf.yaml', document({ peer: { maxPolls: 100000 } })), '--db', h.ws.db, '--output', 'json'], { cwd: h.ws.dir, env: baseEnv() });
    const ended = finished(child);
    await waitFor('GetTask at the peer', () => h.server.methods().includes('GetTask'), 60_000);
    child.kill('SIGTERM');
    expect(outcome(await ended, 130).data.state).to.equal('cancelled');
    expect(h.server.methods()).to.include('CancelTask');
    expect(effects().map((row) => row.state)).to.deep.equal(['uncertain']);
  });

  it('on an encrypted database the recorded call and session are sealed; continue-remote and resume read them with the key', async () => {
    const key = { STATE_KEY: randomBytes(32).toString('base64') };
    outcome(await cli(['db', 'encryption', 'enable', '--key-id', 'k1', '--key-env', 'STATE_KEY'], key), 0);
    await start({ workingObservations: Infinity });
    const failed = errorDocument(await run({ peer: { maxPolls: 1 } }, key), 4);
    diagnosticWithCode(failed, 'AGENTCTL_E_A2A_POLL_LIMIT');
    const [effect] = effects();
    for (const row of rows(h.ws.db, 'SELECT state_json FROM protocol_calls UNION ALL SELECT state_json FROM protocol_sessions')) {
      expect(String(row.state_json)).to.match(/^agentctl\.encrypted\.v1:k1:/);
    }
    diagnosticWithCode(errorDocument(await cli(['effects', 'continue-remote', effect.id]), 5), 'AGENTCTL_E_STATE_KEY_MISSING');
    h.server.finish();
    outcome(await cli(['effects', 'continue-remote', effect.id, '--actor', 'ops'], key), 0);
    expect(outcome(await cli(['resume', failed.error.runId], key), 0).data.state).to.equal('succeeded');
    expect(sent()).to.equal(1);
    const inspected = outcome(await cli(['inspect', failed.error.runId], key), 0).data;
    expect(inspected.protocolCalls[0]).to.deep.include({ remoteId: 'task-1', callIdentity: 'message-1' });
    expectNowhere(h.ws.db, 'perform the bounded fixture task');
  });
});
