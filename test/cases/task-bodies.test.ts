// Task bodies by key, through the real CLI: a pack from the project config registers a `human.ask` kind and the body
// that runs it (it asks a person and returns their reason), with nothing in core/ that knows the kind.
import { expect } from 'chai';
import { baseEnv, runCli } from '../support/cli.js';
import { diagnosticWithCode, outcome, rows, workflow } from './helpers.js';
import { packProject, writeConfig, type Project } from './pack-project.js';

const HUMAN_WORKFLOW = workflow({
  policy: { nonInteractive: 'pause' },
  actions: { ask: { kind: 'human.ask' } },
  tasks: [{ id: 'ask', uses: 'action:ask', with: { question: 'ship release 1.2?' } }],
  outputs: { reason: '${{ tasks.ask.output.reason }}' },
});

describe('task bodies', () => {
  let project: Project;
  afterEach(() => project?.cleanup());

  const cli = (args: string[], env: Record<string, string> = {}) => runCli([...args, '--db', project.db, '--output', 'json'], { cwd: project.dir, env: baseEnv(env) });

  it('a pack\'s body asks an approval: the run pauses (exit 3), and after approve and resume the task output is the reason given', () => {
    project = packProject(['human']);
    writeConfig(project, { packs: ['./packs/human'] });
    project.write('wf.yaml', HUMAN_WORKFLOW);

    const paused = outcome(cli(['run', 'wf.yaml']), 3);
    expect(paused.data.state).to.equal('paused');
    diagnosticWithCode(paused, 'AGENTCTL_E_APPROVAL_PENDING');
    const runId = paused.data.runId;
    expect(rows(project.db, 'SELECT task_id, state FROM tasks WHERE run_id = ?', runId)).to.deep.equal([{ task_id: 'ask', state: 'waiting_for_approval' }]);
    const [approval] = rows(project.db, 'SELECT id, state, task_id FROM approvals WHERE run_id = ?', runId);
    expect(approval).to.include({ state: 'pending', task_id: 'ask' });
    const [waiting] = rows(project.db, 'SELECT operation, state, input_json FROM effects WHERE run_id = ?', runId);
    expect(waiting).to.include({ operation: 'human.approval', state: 'waiting_for_approval' });
    expect(JSON.parse(waiting.input_json)).to.deep.equal({ question: 'ship release 1.2?' });

    outcome(cli(['approvals', 'approve', approval.id, '--reason', 'release notes reviewed'], { USER: 'dana' }), 0);
    const resumed = outcome(cli(['resume', runId]), 0);
    expect(resumed.data.state).to.equal('succeeded');
    expect(resumed.data.output).to.deep.equal({ reason: 'release notes reviewed' });

    expect(rows(project.db, 'SELECT state, decision_reason, actor FROM approvals WHERE run_id = ?', runId)).to.deep.equal([{ state: 'approved', decision_reason: 'release notes reviewed', actor: 'dana' }]);
    const effects = rows(project.db, 'SELECT operation, state, result_json FROM effects WHERE run_id = ?', runId);
    expect(effects.map((row) => [row.operation, row.state])).to.deep.equal([['human.approval', 'succeeded']]);
    expect(JSON.parse(effects[0].result_json)).to.deep.equal({ actor: 'dana', reason: 'release notes reviewed' });
    const [task] = rows(project.db, 'SELECT state, output_json FROM tasks WHERE run_id = ?', runId);
    expect(task.state).to.equal('succeeded');
    expect(JSON.parse(task.output_json)).to.deep.equal({ approvedBy: 'dana', reason: 'release notes reviewed' });
    expect(rows(project.db, 'SELECT state FROM runs WHERE id = ?', runId)).to.deep.equal([{ state: 'succeeded' }]);
  });

  it('plugins list shows the body beside the kind, and the core\'s own bodies as builtins', () => {
    project = packProject(['human']);
    writeConfig(project, { packs: ['./packs/human'] });
    const list = outcome(runCli(['plugins', 'list', '--output', 'json'], { cwd: project.dir }), 0);
    const byName = Object.fromEntries(list.data.plugins.map((plugin: any) => [plugin.name, plugin]));
    expect(byName['agentctl-pack-human']).to.deep.include({ actionKinds: ['human.ask'], taskBodies: ['human.ask'], source: 'path' });
    expect(byName['builtin.agent']).to.deep.include({ actionKinds: [], taskBodies: ['agent'], source: 'builtin' });
    expect(byName['builtin.flow']).to.deep.include({ actionKinds: [], taskBodies: ['flow'], source: 'builtin' });
  });
});
