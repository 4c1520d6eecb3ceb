// The commit hook through the real CLI, observed by a code pack from the project config: an observer sees exactly the
// ledger's audit events, in `seq` order; a slow observer never delays an effect; a throwing or hanging one is a warning.
import { readFileSync, existsSync } from 'node:fs';
import { expect } from 'chai';
import { runCli } from '../support/cli.js';
import { outcome, rows, workflow } from './helpers.js';
import { packProject, writeConfig, type Project } from './pack-project.js';

// Records every event it sees as one JSON line; `mode` makes it slow on each effect.requested, throw, or hang.
const OBSERVER = `
import { appendFileSync } from 'node:fs';
import { z } from 'zod';
import { definePlugin } from '@agentctl/sdk';

export default definePlugin({
  name: 'observer-pack',
  version: '1.0.0',
  hostRange: '^0.1.0',
  optionsSchema: z.strictObject({ path: z.string(), mode: z.enum(['record', 'slow', 'throw', 'hang']) }),
  setup(api) {
    const { path, mode } = api.options;
    api.hooks.commit.tapPromise('observer', async (event) => {
      if (mode === 'throw') throw new Error('observer down');
      if (mode === 'hang' && event.type === 'run.started') await new Promise(() => undefined);
      appendFileSync(path, JSON.stringify({ seq: event.seq ?? null, at: event.at, type: event.type, taskId: event.taskId ?? null, effectId: event.effectId ?? null }) + '\\n');
      if (mode === 'slow' && event.type === 'effect.requested') await new Promise((resolve) => setTimeout(resolve, 1500));
    });
  },
});
`;

/** Writes under out/: `tasks` writes, each needing the one before it. */
const writes = (tasks: number, approval = 'never') =>
  workflow({
    policy: { writableRoots: ['out'], approval },
    actions: { write: { kind: 'builtin.write' } },
    tasks: Array.from({ length: tasks }, (_, index) => ({ id: `w${index}`, uses: 'action:write', with: { path: `out/${index}.txt`, content: `${index}` }, ...(index > 0 ? { needs: [`w${index - 1}`] } : {}) })),
  });

describe('commit observers: the ledger is the only publisher', () => {
  let project: Project;
  afterEach(() => project?.cleanup());

  const observed = () => (existsSync(project.file('events.jsonl')) ? readFileSync(project.file('events.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line)) : []);
  const setUp = (mode: string, document: string) => {
    project = packProject();
    project.write('packs/observer/package.json', JSON.stringify({ name: 'observer-pack', version: '1.0.0', private: true, type: 'module', exports: './plugin.mjs' }));
    project.write('packs/observer/plugin.mjs', OBSERVER);
    writeConfig(project, { packs: [{ path: './packs/observer', options: { path: project.file('events.jsonl'), mode } }] });
    project.write('wf.yaml', document);
  };
  const cli = (...args: string[]) => runCli([...args, '--db', project.db, '--output', 'json'], { cwd: project.dir });
  const audit = (runId: string, after = 0) => rows(project.db, 'SELECT seq, at, type, task_id AS taskId, effect_id AS effectId FROM audit_events WHERE run_id = ? AND seq > ? ORDER BY seq', runId, after);

  it('an observer sees exactly the audit events of each invocation, in seq order, with their time, the approval path included', () => {
    setUp('record', writes(1, 'mutations'));
    const paused = outcome(cli('run', 'wf.yaml'), 3);
    const runId = paused.data.runId;
    const first = observed();
    expect(first).to.deep.equal(audit(runId));
    // What never reached an observer before: the task running on the approval path, the effect waiting, the approval.
    expect(first.map((event) => event.type)).to.include.members(['task.running', 'effect.waiting_for_approval', 'approval.requested', 'task.waiting_for_approval', 'run.paused']);

    const [approval] = rows(project.db, 'SELECT id FROM approvals');
    outcome(cli('approvals', 'approve', approval.id, '--reason', 'ok'), 0);
    // The approval is recorded by a command that drives no run: the resume's observer starts at run.resumed.
    const before = audit(runId).at(-1).seq;
    outcome(cli('resume', runId), 0);
    const second = observed().slice(first.length);
    expect(second).to.deep.equal(audit(runId, before));
    expect(second.map((event) => event.type)).to.deep.equal(['run.resumed', 'task.running', 'effect.requested', 'effect.started', 'effect.succeeded', 'task.succeeded', 'artifact.recorded', 'run.succeeded']);
    const seqs = [...first, ...second].map((event) => event.seq);
    expect(seqs).to.deep.equal([...seqs].sort((a, b) => a - b));
  });

  it('an observer that takes 1.5 s over each effect.requested delays no effect: each starts at once, and it still sees every event', () => {
    setUp('slow', writes(3));
    const started = Date.now();
    const result = outcome(cli('run', 'wf.yaml'), 0);
    expect(result.diagnostics).to.deep.equal([]);
    const events = audit(result.data.runId);
    const at = (type: string, effectId: string) => Date.parse(events.find((event) => event.type === type && event.effectId === effectId).at);
    const effects = rows(project.db, 'SELECT id FROM effects ORDER BY requested_at').map((effect) => effect.id);
    expect(effects).to.have.length(3);
    // Bounds well under what inline observers cost (1.5 s per effect, 4.5 s from the first request to the last start),
    // with room for a loaded machine.
    for (const id of effects) expect(at('effect.started', id) - at('effect.requested', id)).to.be.below(1000);
    expect(at('effect.started', effects[2]) - at('effect.requested', effects[0])).to.be.below(3000);
    // The run's end waited for the observer: it saw everything, and the invocation took its 4.5 s.
    expect(observed()).to.deep.equal(events);
    expect(Date.now() - started).to.be.at.least(4500);
  });

  it('an observer that throws on every event is one warning; the run succeeds, exit 0', () => {
    setUp('throw', writes(1));
    const result = outcome(cli('run', 'wf.yaml'), 0);
    expect(result.data.state).to.equal('succeeded');
    expect(result.diagnostics).to.have.length(1);
    const [warning] = result.diagnostics;
    expect(warning).to.include({ code: 'AGENTCTL_E_PLUGIN_FAILED', severity: 'warning' });
    expect(warning.message).to.contain('observer-pack').and.to.contain('observer down').and.to.contain(`(on ${audit(result.data.runId).length} events)`);
  });

  it('an observer that hangs past its 5 s timeout is one warning, sees nothing later, and the run succeeds, exit 0', () => {
    setUp('hang', writes(2));
    const result = outcome(cli('run', 'wf.yaml'), 0);
    expect(result.data.state).to.equal('succeeded');
    expect(result.diagnostics).to.have.length(1);
    expect(result.diagnostics[0]).to.include({ code: 'AGENTCTL_E_PLUGIN_FAILED', severity: 'warning' });
    expect(result.diagnostics[0].message).to.equal('commit observer observer-pack did not finish within 5 s on run.started (seq 1); it receives no later event of this run');
    expect(observed()).to.deep.equal([]);
    // Nothing waited for it while the run ran: both effects started within moments of their request.
    const events = audit(result.data.runId);
    const times = (type: string) => events.filter((event) => event.type === type).map((event) => Date.parse(event.at));
    expect(times('effect.started').at(-1)! - times('effect.requested')[0]!).to.be.below(3000);
  });
});
