// extension.process under isolation: container, on real Docker and real Podman: the example extension answers both
// launches from inside the node test image, a handshake that differs stops before the invocation, replay creates
// no container, and resume creates only those of the tasks that had not run.
import { chmodSync, copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { baseEnv, ROOT, runCli, workspace } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome, rows, workflow } from './helpers.js';
import { engineClient, forEachEngine, type EngineInfo } from '../support/engines.js';

const EXAMPLE = parse(readFileSync(join(ROOT, 'examples', 'extension-process.yaml'), 'utf8'));

/** The engine's variable pointing agentctl at its socket. */
const engineEnv = (engine: EngineInfo) => baseEnv({ [engine.name === 'docker' ? 'DOCKER_HOST' : 'CONTAINER_HOST']: `unix://${engine.socket}` });

/**
 * A workspace the container user (65532) can read, holding the example extension as a package would ship it: its
 * script, and `@agentctl/sdk/process` resolved through the package's own name.
 */
function extensionWorkspace() {
  const ws = workspace();
  chmodSync(ws.dir, 0o755);
  mkdirSync(join(ws.dir, 'dist'), { recursive: true });
  copyFileSync(join(ROOT, 'sdk', 'dist', 'process.js'), join(ws.dir, 'dist', 'process.js'));
  copyFileSync(join(ROOT, 'examples', 'extensions', 'word-count', 'extension.mjs'), join(ws.dir, 'extension.mjs'));
  ws.write('package.json', JSON.stringify({ name: '@agentctl/sdk', type: 'module', exports: { './process': './dist/process.js' } }));
  return ws;
}

/** The example workflow, its action moved into a container of the node test image. */
function containedExample(engine: EngineInfo, action: Record<string, unknown> = {}): string {
  const count = EXAMPLE.spec.actions.count;
  return workflow({
    inputs: EXAMPLE.spec.inputs,
    outputs: EXAMPLE.spec.outputs,
    policy: EXAMPLE.spec.policy,
    actions: { count: { ...count, command: '/usr/bin/node', args: ['extension.mjs'], isolation: 'container', container: { image: engine.images.node, runtime: engine.name }, ...action } },
    tasks: EXAMPLE.spec.tasks,
  });
}

/**
 * Containers this engine created between two instants (its event log) for effects of the database `db`: other test
 * files running at the same time create containers on the same engine, and their effects are not in this database.
 */
async function created(engine: EngineInfo, since: number, until: number, db: string): Promise<string[]> {
  const stream = (await engineClient(engine).getEvents({ since: Math.floor(since / 1000), until: Math.ceil(until / 1000) + 1, filters: { type: ['container'], event: ['create'] } })) as NodeJS.ReadableStream;
  const ours = new Set(rows(db, 'SELECT id FROM effects').map((row) => String(row.id)));
  let text = '';
  for await (const chunk of stream) text += chunk.toString();
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => String((JSON.parse(line) as { Actor?: { Attributes?: { name?: string } } }).Actor?.Attributes?.name ?? ''))
    .filter((name) => name.startsWith('agentctl-'))
    .filter((name) => ours.has(name.slice('agentctl-'.length).split('-')[0]!));
}

forEachEngine('extension.process in a container', (engine) => {
  let ws: ReturnType<typeof workspace>;
  beforeEach(() => (ws = extensionWorkspace()));
  afterEach(() => ws.cleanup());
  const cli = (...args: string[]) => runCli([...args, '--db', ws.db, '--output', 'json'], { cwd: ws.dir, env: engineEnv(engine) });

  it('the example extension answers its handshake and invocation from inside the image; replay creates no container', async () => {
    const file = ws.write('wf.yaml', containedExample(engine));
    const started = Date.now();
    const document = outcome(cli('run', file), 0);
    expect(document.data.output).to.deep.equal({ words: 12, lines: 2, top: [{ word: 'the', count: 3 }, { word: 'dog', count: 2 }] });
    const [effect] = rows(ws.db, 'SELECT id, input_json, state FROM effects');
    expect(effect!.state).to.equal('succeeded');
    const input = JSON.parse(String(effect!.input_json));
    expect(input.isolation).to.equal('container');
    expect(input.container).to.include({ image: engine.images.node, engine: engine.name });
    // Two launches, each a container named after the effect, both gone once the task ended.
    const names = await created(engine, started, Date.now(), ws.db);
    expect(names.sort()).to.deep.equal([`agentctl-${effect!.id}-handshake`, `agentctl-${effect!.id}-invoke`]);
    expect(await engineClient(engine).listContainers({ all: true, filters: { label: [`dev.agentctl.effect=${effect!.id}`] } })).to.deep.equal([]);

    const before = Date.now();
    const replayed = outcome(cli('replay', document.data.runId), 0);
    expect(replayed.data.output).to.deep.equal(document.data.output);
    expect(await created(engine, before, Date.now(), ws.db)).to.deep.equal([]);
  });

  it('resume after an approval creates the containers of the task that had not run, and none for the one that had', async () => {
    const count = EXAMPLE.spec.actions.count;
    const action = { ...count, command: '/usr/bin/node', args: ['extension.mjs'], isolation: 'container', container: { image: engine.images.node, runtime: engine.name } };
    const file = ws.write(
      'wf.yaml',
      workflow({
        policy: { processAllowlist: ['node'], approval: 'mutations' },
        actions: { count: action },
        outputs: { first: '${{ tasks.first.output.words }}', second: '${{ tasks.second.output.words }}' },
        tasks: [
          { id: 'first', uses: 'action:count', with: { text: 'one two' } },
          { id: 'second', uses: 'action:count', needs: ['first'], with: { text: 'one two three' } },
        ],
      }),
    );
    const approve = (runId: string) => {
      const pending = outcome(cli('approvals', 'list', runId), 0).data.filter((item: { status: string }) => item.status === 'pending');
      expect(pending).to.have.length(1);
      outcome(cli('approvals', 'approve', pending[0].approvalId, '--reason', 'reviewed'), 0);
    };
    const runId = outcome(cli('run', file), 3).data.runId as string;
    approve(runId);
    let since = Date.now();
    expect(outcome(cli('resume', runId), 3).data.tasks).to.deep.include({ first: 'succeeded' });
    const first = rows(ws.db, "SELECT id FROM effects WHERE task_id = 'first'")[0]!.id;
    expect((await created(engine, since, Date.now(), ws.db)).sort()).to.deep.equal([`agentctl-${first}-handshake`, `agentctl-${first}-invoke`]);
    approve(runId);
    since = Date.now();
    const done = outcome(cli('resume', runId), 0);
    expect(done.data.output).to.deep.equal({ first: 2, second: 3 });
    const second = rows(ws.db, "SELECT id FROM effects WHERE task_id = 'second'")[0]!.id;
    expect((await created(engine, since, Date.now(), ws.db)).sort()).to.deep.equal([`agentctl-${second}-handshake`, `agentctl-${second}-invoke`]);
  });

  it('a handshake that differs from the declaration fails the effect, and the invocation never starts', async () => {
    const file = ws.write('wf.yaml', containedExample(engine, { capabilities: ['text.other'] }));
    const started = Date.now();
    const failed = diagnosticWithCode(errorDocument(cli('run', file), 4), 'AGENTCTL_E_EXTENSION_HANDSHAKE');
    expect(failed.message).to.match(/capabilities/);
    const [effect] = rows(ws.db, 'SELECT id, state FROM effects');
    expect(effect!.state).to.equal('failed');
    expect(await created(engine, started, Date.now(), ws.db)).to.deep.equal([`agentctl-${effect!.id}-handshake`]);
  });
});
