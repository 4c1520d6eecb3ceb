// A run continues with the code it started with, through the real CLI: each run records the config it used (relative
// to its workflow's folder) and every code pack's digest; resume, retry, repair and fork load that config from the
// run's recorded folder, whatever the current folder, and refuse a pack that differs (AGENTCTL_E_RUN_PACK_CHANGED)
// unless --allow-pack-change; approvals approve prints the resume command with the --db and --config it needs.
import { appendFileSync, rmSync } from 'node:fs';
import { expect } from 'chai';
import { baseEnv, runCli } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome, rows, workflow } from './helpers.js';
import { packProject, type Project } from './pack-project.js';

/** The echo pack's task, then a process that pauses the run for an approval (the default non-interactive policy). */
const FLOW = workflow({
  policy: { processAllowlist: ['sh'], writableRoots: ['.'] },
  actions: { say: { kind: 'agentctl-pack-echo.say' }, mark: { kind: 'builtin.shell.exec', command: '/bin/sh', args: ['-c', 'echo done >> out.txt'] } },
  tasks: [
    { id: 'say', uses: 'action:say', with: { text: 'world' } },
    { id: 'mark', uses: 'action:mark', needs: ['say'] },
  ],
  outputs: { said: '${{ tasks.say.output.said }}' },
});

describe('a run continues with the code it started with', () => {
  let project: Project;
  afterEach(() => project?.cleanup());

  /** A project whose CI workflow and its config live in ci/, run from the project root, where no config is. */
  function setup(): { cli: (args: string[], json?: boolean) => ReturnType<typeof runCli>; config: string } {
    project = packProject(['echo']);
    const config = project.write('ci/agentctl.config.json', JSON.stringify({ packs: ['../packs/echo'] }));
    project.write('ci/wf.yaml', FLOW);
    const cli = (args: string[], json = true) => runCli([...args, '--db', project.db, ...(json ? ['--output', 'json'] : [])], { cwd: project.dir, env: baseEnv({ USER: 'dana' }) });
    return { cli, config };
  }

  function pausedRun(cli: ReturnType<typeof setup>['cli']): { runId: string; approvalId: string } {
    const paused = outcome(cli(['run', 'ci/wf.yaml']), 3);
    expect(paused.data.state).to.equal('paused');
    const approvals = outcome(cli(['approvals', 'list', paused.data.runId]), 0).data;
    return { runId: paused.data.runId, approvalId: approvals[0].approvalId };
  }

  it('records the config (relative to the workflow folder) and each pack digest; resume from another folder loads that config; approve prints --db and --config', () => {
    const { cli, config } = setup();
    const { runId, approvalId } = pausedRun(cli);
    const plan = JSON.parse(rows(project.db, `SELECT plan_json FROM runs WHERE id = '${runId}'`)[0].plan_json);
    expect(plan.recordedConfig).to.deep.include({ folder: project.file('ci'), file: 'agentctl.config.json' });
    expect(plan.recordedConfig.packs).to.have.length(1);
    expect(plan.recordedConfig.packs[0]).to.deep.include({ name: 'agentctl-pack-echo', version: '1.2.3', hostRange: '^0.1.0', source: { path: '../packs/echo' } });
    expect(plan.recordedConfig.packs[0].integrity).to.match(/^sha256:[0-9a-f]{64}$/);

    const approved = cli(['approvals', 'approve', approvalId, '--reason', 'ok'], false);
    expect(approved.status, approved.stderr).to.equal(0);
    expect(approved.stdout).to.equal(`approval ${approvalId} approved by dana; continue with: agentctl resume ${runId} --db ${project.db} --config ${config}\n`);

    // From the project root, where no config is: the run's own config loads the echo pack.
    const resumed = outcome(cli(['resume', runId]), 0);
    expect(resumed.data).to.deep.include({ runId, state: 'succeeded', output: { said: 'echo: world' } });
  });

  it('a pack changed since the run started: resume refuses with AGENTCTL_E_RUN_PACK_CHANGED naming it, nothing runs; --allow-pack-change continues', () => {
    const { cli, config } = setup();
    const { runId, approvalId } = pausedRun(cli);
    outcome(cli(['approvals', 'approve', approvalId, '--reason', 'ok']), 0);
    appendFileSync(project.file('packs/echo/plugin.mjs'), '// changed\n');
    const refused = errorDocument(cli(['resume', runId]), 2);
    const found = diagnosticWithCode(refused, 'AGENTCTL_E_RUN_PACK_CHANGED');
    expect(found).to.deep.include({ plugin: 'agentctl-pack-echo', file: config, help: 'restore the pack the run used, or pass --allow-pack-change to continue with the packs as they are now' });
    expect(found.message).to.match(new RegExp(`^code pack agentctl-pack-echo changed since run ${runId} started: its files have the digest sha256:[0-9a-f]{64}, the run recorded sha256:[0-9a-f]{64}; it was not loaded; run ${runId} continues only with the code it started with$`));
    expect(rows(project.db, `SELECT state FROM runs WHERE id = '${runId}'`)[0].state).to.equal('paused');
    expect(rows(project.db, `SELECT state FROM tasks WHERE run_id = '${runId}' AND task_id = 'mark'`)[0].state).to.not.equal('succeeded');
    const resumed = outcome(cli(['resume', runId, '--allow-pack-change']), 0);
    expect(resumed.data.state).to.equal('succeeded');
  });

  it('fork and retry load the run\'s recorded config from another folder, record it on the new run, and refuse a pack gone from it', () => {
    const { cli, config } = setup();
    const { runId, approvalId } = pausedRun(cli);
    const forked = outcome(cli(['fork', runId]), 3);
    expect(forked.data).to.deep.include({ state: 'paused', sourceRunId: runId });
    const recorded = (id: string) => JSON.parse(rows(project.db, `SELECT plan_json FROM runs WHERE id = '${id}'`)[0].plan_json).recordedConfig;
    expect(recorded(forked.data.runId)).to.deep.equal(recorded(runId));
    // Rejected, the run fails: a run retry takes.
    outcome(cli(['approvals', 'reject', approvalId, '--reason', 'no']), 0);
    diagnosticWithCode(errorDocument(cli(['resume', runId]), 4), 'AGENTCTL_E_APPROVAL_REJECTED');
    // The pack is gone from the run's config: fork and retry refuse, naming it; retry --plan before it plans.
    project.write('ci/agentctl.config.json', JSON.stringify({ packs: [] }));
    const gone = diagnosticWithCode(errorDocument(cli(['fork', runId]), 2), 'AGENTCTL_E_RUN_PACK_CHANGED');
    expect(gone).to.deep.include({ plugin: 'agentctl-pack-echo', file: config, message: `code pack agentctl-pack-echo of run ${runId} is not in ${config} now; run ${runId} continues only with the code it started with` });
    diagnosticWithCode(errorDocument(cli(['retry', 'ci/wf.yaml', runId, '--from', 'say', '--plan']), 2), 'AGENTCTL_E_RUN_PACK_CHANGED');
    // The config itself gone: refused as a missing config file, not searched for elsewhere.
    rmSync(config);
    const missing = errorDocument(cli(['fork', runId]), 2);
    expect(diagnosticWithCode(missing, 'AGENTCTL_E_FILE_NOT_FOUND').message).to.equal(`config file ${config} does not exist`);
  });
});
