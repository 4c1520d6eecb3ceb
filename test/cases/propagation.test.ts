// A pack's propagator, through the real CLI: a `TRACEPARENT` entry for the processes of a task (named in `plan`, never
// over the workflow's own entry, never a secret value) and a `traceparent` header on a provider's HTTP request (never
// over a header the request has).
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { stringify } from 'yaml';
import { baseEnv, runCli, runCliAsync } from '../support/cli.js';
import { startOpenAiServer, type OpenAiServer } from '../support/openai-server.js';
import { diagnosticWithCode, errorDocument, outcome, rows, unique, workflow } from './helpers.js';
import { packProject, writeConfig, type Project } from './pack-project.js';

const PROPAGATED = [{ name: 'TRACEPARENT', plugin: 'agentctl-pack-trace' }];
const traceparent = (traceId: string, effectId: string) => `00-${traceId}-${effectId.slice(4, 20)}-01`;

describe('propagation by a pack', function () {
  this.timeout(120_000);
  let project: Project;
  afterEach(() => project?.cleanup());

  const setUp = (options: Record<string, unknown>, document: string) => {
    project = packProject(['trace']);
    writeConfig(project, { packs: [{ path: './packs/trace', options: { propagate: true, ...options } }] });
    project.write('wf.yaml', document);
  };
  const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => runCli([...args, ...(args[0] === 'run' ? ['--db', project.db] : [])], { cwd: project.dir, env: baseEnv(env) });

  describe('to processes', () => {
    const WORKFLOW = workflow({
      runtime: { maxConcurrency: 1 },
      policy: { approval: 'never', processAllowlist: ['printenv'], environmentAllowlist: ['TRACEPARENT'] },
      actions: {
        print: { kind: 'builtin.shell.exec', command: 'printenv', args: ['TRACEPARENT'] },
        own: { kind: 'builtin.shell.exec', command: 'printenv', args: ['TRACEPARENT'], env: { TRACEPARENT: 'set-by-the-workflow' } },
      },
      tasks: [
        { id: 'print', uses: 'action:print' },
        { id: 'own', uses: 'action:own' },
      ],
    });

    it('a shell task sees TRACEPARENT with the run\'s trace id; one the workflow sets is kept; plan names the entry', () => {
      setUp({}, WORKFLOW);
      outcome(cli(['run', 'wf.yaml', '--output', 'json']), 0);
      const [{ trace_id: traceId }] = rows(project.db, 'SELECT trace_id FROM runs');
      expect(traceId).to.match(/^[0-9a-f]{32}$/);
      const effects = rows(project.db, 'SELECT id, task_id, input_json, result_json FROM effects ORDER BY rowid');
      expect(effects.map((effect) => [effect.task_id, JSON.parse(effect.result_json).stdout])).to.deep.equal([
        ['print', `${traceparent(traceId, effects[0].id)}\n`],
        ['own', 'set-by-the-workflow\n'],
      ]);
      // What a propagator adds belongs to this run's context: the effect records the workflow's environment only.
      expect(JSON.parse(effects[0].input_json).env).to.deep.equal({});

      const plan = outcome(cli(['plan', 'wf.yaml', '--output', 'json']), 0);
      expect(plan.data.processes.map((process: any) => [process.action, process.propagatedEnvironment ?? null])).to.deep.equal([
        ['print', PROPAGATED],
        ['own', null],
      ]);
      const human = cli(['plan', 'wf.yaml']);
      expect(human.status).to.equal(0);
      const lines = human.stdout.split('\n');
      const print = lines.findIndex((line) => line.startsWith('process print:'));
      expect(lines.slice(print + 1, print + 2)).to.deep.equal(['  environment TRACEPARENT added by plugin agentctl-pack-trace (propagation)']);
      expect(lines.filter((line) => line.startsWith('  environment'))).to.have.length(1);
    });

    it('a value that holds a secret value of the run is refused: the process never starts and the pack is named', () => {
      const canary = unique('canary-');
      const document = workflow({
        policy: { approval: 'never', processAllowlist: ['printenv'], environmentAllowlist: ['TOKEN'] },
        actions: { print: { kind: 'builtin.shell.exec', command: 'printenv', args: ['TRACEPARENT'], env: { TOKEN: { env: 'PROPAGATION_CANARY' } } } },
        tasks: [{ id: 'print', uses: 'action:print' }],
      });
      setUp({ leakVariable: 'PROPAGATION_CANARY' }, document);
      const result = cli(['run', 'wf.yaml', '--output', 'json'], { PROPAGATION_CANARY: canary });
      const error = errorDocument(result, 4);
      expect(diagnosticWithCode(error, 'AGENTCTL_E_PLUGIN_FAILED')).to.include({
        plugin: 'agentctl-pack-trace',
        hook: 'propagator',
        message: 'plugin agentctl-pack-trace failed in hook propagator: propagator w3c-trace-context added environment entry TRACEPARENT whose value holds a secret value of the run; nothing was started',
      });
      const [effect] = rows(project.db, 'SELECT state, result_json FROM effects');
      expect(effect.state).to.equal('failed');
      expect(result.stdout + result.stderr + readFileSync(project.db, 'latin1')).to.not.contain(canary);
    });
  });

  describe('to HTTP requests', () => {
    let server: OpenAiServer;
    beforeEach(async () => (server = await startOpenAiServer()));
    afterEach(async () => server.close());

    it('a provider request carries traceparent with the run\'s trace id and the model effect; its Authorization is kept', async () => {
      const key = unique('sk-canary-');
      const document = stringify({
        apiVersion: 'agentctl.dev/v1',
        kind: 'Workflow',
        metadata: { name: 'traced-agent' },
        spec: {
          providers: { openai: { kind: 'openai', endpoint: server.url } },
          policy: { approval: 'never', networkAllowlist: ['127.0.0.1'], network: { allowedSchemes: ['http'], allowedPorts: [Number(new URL(server.url).port)], allowPrivate: true } },
          agents: { analyst: { provider: 'openai', model: 'gpt-5-mini', instructions: 'Be brief.', timeoutSeconds: 10 } },
          tasks: [{ id: 'ask', uses: 'agent:analyst', with: { prompt: 'Say hi.' } }],
        },
      });
      setUp({}, document);
      server.enqueue({ text: 'hi' });
      outcome(await runCliAsync(['run', 'wf.yaml', '--db', project.db, '--output', 'json'], { cwd: project.dir, env: baseEnv({ OPENAI_API_KEY: key }) }), 0);
      const [{ trace_id: traceId }] = rows(project.db, 'SELECT trace_id FROM runs');
      const [model] = rows(project.db, "SELECT id FROM effects WHERE operation = 'model.request'");
      expect(server.requests).to.have.length(1);
      expect(server.requests[0]!.headers).to.include({ traceparent: traceparent(traceId, model.id), authorization: `Bearer ${key}` });
    });
  });
});
