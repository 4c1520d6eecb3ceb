// `--output jsonl` (the reference's third output mode): one StreamEvent envelope per recorded event, as it is
// recorded, then the final document `--output json` prints. Every line is validated against its published schema.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { baseEnv, runCli, validDocument, type CliResult } from '../support/cli.js';
import { errorDocument, outcome, rows, useWorkspace, workflow } from '../cases/helpers.js';

/** Every stdout line as a validated document: the StreamEvent lines, then the final document. */
function jsonLines(result: CliResult): { events: any[]; final: any } {
  const documents = result.stdout.split('\n').filter((line) => line !== '').map((line) => validDocument(JSON.parse(line)));
  const events = documents.filter((document) => document.kind === 'StreamEvent');
  const rest = documents.filter((document) => document.kind !== 'StreamEvent');
  expect(rest.length, 'at most one final document').to.be.at.most(1);
  if (rest[0]) expect(documents.at(-1), 'the final document comes last').to.equal(rest[0]);
  return { events: events.map((event) => event.data), final: rest[0] };
}

const ASSIGN_AND_WRITE = (approval: string) =>
  workflow({
    policy: { writableRoots: ['out'], approval },
    outputs: { message: '${{ tasks.greet.output.output.message }}' },
    actions: { assign: { kind: 'builtin.assign' }, write: { kind: 'builtin.write' } },
    tasks: [
      { id: 'greet', uses: 'action:assign', with: { message: 'hi' } },
      { id: 'save', uses: 'action:write', needs: ['greet'], with: { path: 'out/x.txt', content: '${{ tasks.greet.output.output.message }}' } },
    ],
  });

const kinds = (events: any[]) => events.map((event) => [event.eventType, event.taskId]);

describe('compat: --output jsonl', () => {
  const state = useWorkspace();

  it('run prints each recorded event as a StreamEvent line, in order, then the RunOutcome --output json prints', () => {
    state.ws.write('wf.yaml', ASSIGN_AND_WRITE('never'));
    const result = runCli(['run', state.ws.file('wf.yaml'), '--db', state.ws.db, '--output', 'jsonl']);
    expect(result.status, result.stderr).to.equal(0);
    expect(result.stderr).to.equal('');
    const { events, final } = jsonLines(result);
    expect(kinds(events)).to.deep.equal([
      ['run.started', null],
      ['task.succeeded', 'greet'],
      ['task.running', 'save'],
      ['effect.requested', 'save'],
      ['effect.started', 'save'],
      ['effect.succeeded', 'save'],
      ['task.succeeded', 'save'],
      ['run.succeeded', null],
    ]);
    const runId = final.data.runId;
    expect(events.map((event) => event.sequence)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(events.every((event) => event.runId === runId && event.truncated === false && event.sourceRunId === null && event.providerSequence === null)).to.equal(true);
    const [effect] = rows(state.ws.db, 'SELECT id FROM effects WHERE run_id = ?', runId);
    expect(events.slice(3, 6).map((event) => [event.effectId, event.taskAttempt, event.payload])).to.deep.equal([
      [effect.id, 1, { operation: 'filesystem.write' }],
      [effect.id, 1, { operation: 'filesystem.write' }],
      [effect.id, 1, { operation: 'filesystem.write' }],
    ]);
    expect(events[0].payload).to.deep.equal({ workflow: 'test', traceId: final.data.traceId });
    expect(events[0].taskAttempt).to.equal(null);
    // The final document is the one --output json prints for the same workflow.
    expect(final.kind).to.equal('RunOutcome');
    expect(final.data).to.deep.include({ state: 'succeeded', output: { message: 'hi' } });
    const json = outcome(runCli(['run', state.ws.file('wf.yaml'), '--db', state.ws.db, '--output', 'json']), 0);
    expect({ ...json.data, runId: null, traceId: null }).to.deep.equal({ ...final.data, runId: null, traceId: null });
  });

  it('an approval pause prints approval.requested with the recorded approval, exit 3; resume prints the rest', () => {
    state.ws.write('wf.yaml', ASSIGN_AND_WRITE('mutations'));
    const paused = runCli(['run', state.ws.file('wf.yaml'), '--db', state.ws.db, '--output', 'jsonl']);
    expect(paused.status, paused.stderr).to.equal(3);
    const first = jsonLines(paused);
    const [approval] = rows(state.ws.db, 'SELECT id, effect_id FROM approvals');
    expect(kinds(first.events).slice(-3)).to.deep.equal([
      ['task.waiting_for_approval', 'save'],
      ['approval.requested', 'save'],
      ['run.paused', null],
    ]);
    expect(first.events.at(-2)).to.deep.include({ effectId: approval.effect_id, payload: { approvalId: approval.id }, taskAttempt: 1 });
    expect(first.final.data.state).to.equal('paused');

    outcome(runCli(['approvals', 'approve', approval.id, '--reason', 'ok', '--db', state.ws.db, '--output', 'json']), 0);
    const resumed = runCli(['resume', first.final.data.runId, '--db', state.ws.db, '--output', 'jsonl']);
    expect(resumed.status, resumed.stderr).to.equal(0);
    const second = jsonLines(resumed);
    expect(kinds(second.events)).to.deep.equal([
      ['run.resumed', null],
      ['task.running', 'save'],
      ['effect.requested', 'save'],
      ['effect.started', 'save'],
      ['effect.succeeded', 'save'],
      ['task.succeeded', 'save'],
      ['run.succeeded', null],
    ]);
    expect(second.events[2].effectId).to.equal(approval.effect_id);
    expect(second.final.data).to.deep.include({ state: 'succeeded', output: { message: 'hi' } });
  });

  it('a failed run prints its events on stdout and the Error document on stderr (exit 4); no event carries the secret', () => {
    const canary = randomBytes(16).toString('hex');
    state.ws.write(
      'wf.yaml',
      workflow({
        policy: { processAllowlist: ['sh'], environmentAllowlist: ['TOKEN'], approval: 'never' },
        actions: { cmd: { kind: 'builtin.shell.exec', command: 'sh', args: ['-c', 'echo "$TOKEN"; echo "$TOKEN" >&2; exit 3'], env: { TOKEN: { env: 'CANARY' } } } },
        tasks: [{ id: 'cmd', uses: 'action:cmd' }],
      }),
    );
    const result = runCli(['run', state.ws.file('wf.yaml'), '--db', state.ws.db, '--output', 'jsonl'], { env: baseEnv({ CANARY: canary }) });
    expect(result.status).to.equal(4);
    expect(result.stdout + result.stderr).to.not.contain(canary);
    const { events, final } = jsonLines(result);
    expect(final).to.equal(undefined);
    expect(kinds(events)).to.deep.equal([
      ['run.started', null],
      ['task.running', 'cmd'],
      ['effect.requested', 'cmd'],
      ['effect.started', 'cmd'],
      ['effect.failed', 'cmd'],
      ['task.failed', 'cmd'],
      ['run.failed', null],
    ]);
    expect(events[4].payload).to.deep.equal({ operation: 'process.exec', code: 'AGENTCTL_E_PROCESS_EXIT' });
    const error = errorDocument({ ...result, stdout: '' }, 4);
    expect(error.error.runId).to.equal(events[0].runId);
  });

  it('--output json still prints exactly one document and no event', () => {
    state.ws.write('wf.yaml', ASSIGN_AND_WRITE('never'));
    const document = outcome(runCli(['run', state.ws.file('wf.yaml'), '--db', state.ws.db, '--output', 'json']), 0);
    expect(document.kind).to.equal('RunOutcome');
  });

  it('schema --kind StreamEvent publishes the reference stream record fields', () => {
    const result = runCli(['schema', '--kind', 'StreamEvent']);
    expect(result.status, result.stderr).to.equal(0);
    const schema = JSON.parse(result.stdout);
    expect(schema.properties.kind.const).to.equal('StreamEvent');
    expect(Object.keys(schema.properties.data.properties)).to.deep.equal([
      'runId', 'taskId', 'taskAttempt', 'sequence', 'effectId', 'eventType', 'providerSequence', 'payload', 'truncated', 'sourceRunId', 'sourceSequence', 'createdAt',
    ]);
  });

  it('an agent with stream: true prints its answer as stream.delta events of the model turn, in order, before the task ends', () => {
    state.ws.write(
      'wf.yaml',
      workflow({
        providers: { fake: { kind: 'fake' } },
        agents: { streamer: { provider: 'fake', model: 'scripted', instructions: 'Return the marker.', stream: true, maxTurns: 1, maxToolCalls: 0, providerOptions: { finalText: 'STREAM COMPLETE now' } } },
        outputs: { result: '${{ tasks.stream.output.text }}' },
        tasks: [{ id: 'stream', uses: 'agent:streamer', with: { prompt: 'emit bounded progress' } }],
      }),
    );
    const result = runCli(['run', state.ws.file('wf.yaml'), '--db', state.ws.db, '--output', 'jsonl']);
    expect(result.status, result.stderr).to.equal(0);
    const { events, final } = jsonLines(result);
    expect(final.data.output).to.deep.equal({ result: 'STREAM COMPLETE now' });
    const [turn] = rows(state.ws.db, "SELECT id FROM effects WHERE operation = 'model.request'");
    const deltas = events.filter((event) => event.eventType === 'stream.delta');
    expect(deltas.map((event) => [event.payload.delta, event.providerSequence, event.effectId, event.taskId, event.taskAttempt])).to.deep.equal([
      ['STREAM ', 1, turn.id, 'stream', 1],
      ['COMPLETE ', 2, turn.id, 'stream', 1],
      ['now', 3, turn.id, 'stream', 1],
    ]);
    const types = events.map((event) => event.eventType);
    expect(types.indexOf('effect.started')).to.be.below(types.indexOf('stream.delta'));
    expect(types.lastIndexOf('stream.delta')).to.be.below(types.indexOf('effect.succeeded'));

    // Without stream: true the same answer prints no delta.
    state.ws.write('wf.yaml', workflow({
      providers: { fake: { kind: 'fake' } },
      agents: { streamer: { provider: 'fake', model: 'scripted', instructions: 'Return the marker.', maxTurns: 1, maxToolCalls: 0, providerOptions: { finalText: 'STREAM COMPLETE now' } } },
      tasks: [{ id: 'stream', uses: 'agent:streamer', with: { prompt: 'emit bounded progress' } }],
    }));
    const quiet = jsonLines(runCli(['run', state.ws.file('wf.yaml'), '--db', state.ws.db, '--output', 'jsonl']));
    expect(quiet.events.filter((event) => event.eventType.startsWith('stream.'))).to.deep.equal([]);
  });
});
