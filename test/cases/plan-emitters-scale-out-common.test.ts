// What every scale-out plan emitter does alike: `plan --shards N --emit FORMAT` through the CLI, deterministic output
// opening with where it came from, the refusals (no shard count, no fan-out to cut, bad options), no secret value in
// any byte, and the stage commands, DNS labels and defaults they share from @agentctl/sdk.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { dnsLabel, shardedPlan, stageArguments } from '@agentctl/sdk';
import { baseEnv, runCli } from '../support/cli.js';
import { assertNoCanary, errorDocument, outcome, unique, useWorkspace, workflow } from './helpers.js';
import { emit, FANOUT, FORMATS, notShardable, PREFIX, refusal, withStages } from './plan-emitters-support.js';

describe('plan emitters for scale-out: what they share', function () {
  this.timeout(60_000);
  const state = useWorkspace();
  let plan: any;

  beforeEach(() => {
    plan = outcome(runCli(['plan', state.ws.write('flows/wf.yaml', FANOUT), '--output', 'json']), 0).data;
  });

  describe('the shared stage commands (@agentctl/sdk)', () => {
    it('name the workflow, the stages\' ledgers under the state folder and the shard index as the runner spells it', () => {
      const cut = shardedPlan(withStages(plan, 2), 'custom');
      expect(cut).to.deep.equal({ sharded: { workflowName: 'Fan.Out_Demo', planDigest: plan.planDigest, fanout: 'work', items: 5, shards: 2, inputs: {} } });
      expect(stageArguments((cut as any).sharded, { workflow: 'wf.yaml', state: 'ledgers/', shardIndex: '$I' })).to.deep.equal({
        prepare: ['run', 'wf.yaml', '--stage', 'prepare', '--fanout', 'work', '--db', 'ledgers/prepare/runtime.db', '--output', 'json'],
        shard: ['run', 'wf.yaml', '--shard', '$I/2', '--from', 'ledgers/prepare/runtime.db', '--db', 'ledgers/shards/$I/runtime.db', '--output', 'json'],
        gather: ['runs', 'gather', 'wf.yaml', '--from', 'ledgers/shards/0/runtime.db', '--from', 'ledgers/shards/1/runtime.db', '--db', 'ledgers/gather/runtime.db', '--output', 'json'],
      });
      expect((shardedPlan(withStages(plan, 300), 'custom') as any).refusal).to.deep.include({ reason: 'no_shards', message: 'the plan of workflow Fan.Out_Demo has 300 shards; a plan has 1 to 256' });
      expect((shardedPlan(notShardable(plan), 'custom') as any).refusal).to.deep.include({ reason: 'not_shardable', code: 'single_item' });
    });

    it('give every stage the inputs the plan was made with, so a shard reuses what prepare ran with them', async () => {
      const withInputs = FANOUT.replace('spec:\n', 'spec:\n  inputs:\n    channel: stable\n    limit: 2\n');
      const file = state.ws.write('flows/inputs.yaml', withInputs);
      const overridden = withStages(outcome(runCli(['plan', file, '--input', 'channel=beta', '--output', 'json']), 0).data, 2);
      expect(overridden.inputs).to.deep.equal({ channel: 'beta', limit: 2 });
      const inputs = ['--inputs', '{"channel":"beta","limit":2}', '--output', 'json'];
      const jobs = await emit('k8s-indexed-job', overridden);
      for (const path of ['00-prepare-job.yaml', '10-shards-job.yaml', '20-gather-job.yaml']) expect(parse(jobs.get(path)!).spec.template.spec.containers[0].args.slice(-4), path).to.deep.equal(inputs);
      const argo = parse((await emit('argo', overridden)).get('workflow.yaml')!);
      for (const template of argo.spec.templates.slice(1)) expect(template.container.args.slice(-4), template.name).to.deep.equal(inputs);
      const github = parse((await emit('github-matrix', overridden, { runner: 'npx' })).get('.github/workflows/fan-out-demo.yml')!);
      expect(github.jobs.prepare.steps[2].run).to.match(/ --inputs '\{"channel":"beta","limit":2\}' --output json$/);
      expect(github.jobs.shard.steps[3].run).to.match(/ --inputs '\{"channel":"beta","limit":2\}' --output json$/);
    });

    it('make a DNS-1123 label of any workflow name', () => {
      expect(dnsLabel('Fan.Out_Demo')).to.equal('fan-out-demo');
      expect(dnsLabel('__a..b__')).to.equal('a-b');
      expect(dnsLabel('___')).to.equal('agentctl');
      expect(dnsLabel(`${'a'.repeat(39)}_b`, 40)).to.equal('a'.repeat(39));
    });

    it('default the workflow path from the file plan was given: its name under /config, or the repository path', async () => {
      const argsOf = async (format: 'k8s-indexed-job' | 'argo', file: string) => parse((await emit(format, withStages(plan, 2), {}, file)).get(format === 'argo' ? 'workflow.yaml' : '00-prepare-job.yaml')!);
      expect((await argsOf('k8s-indexed-job', '-')).spec.template.spec.containers[0].args[1]).to.equal('/config/workflow.yaml');
      expect((await argsOf('k8s-indexed-job', '/abs/path/nightly.yml')).spec.template.spec.containers[0].args[1]).to.equal('/config/nightly.yml');
      expect((await argsOf('argo', 'a/b/c.yaml')).spec.templates[1].container.args[1]).to.equal('/config/c.yaml');
      const github = async (file: string) => (await emit('github-matrix', withStages(plan, 2), { runner: 'npx' }, file)).get('.github/workflows/fan-out-demo.yml')!;
      expect(await github('./agentctl/wf.yaml')).to.contain('agentctl run agentctl/wf.yaml --stage prepare');
      expect(await github('../elsewhere/wf.yaml')).to.contain('agentctl run wf.yaml --stage prepare');
      expect(await github('/abs/wf.yaml')).to.contain('agentctl run wf.yaml --stage prepare');
    });
  });

  describe('every emitter', () => {
    for (const format of FORMATS) {
      it(`${format}: same plan, same bytes, each file opening with where it came from`, async () => {
        const first = await emit(format, withStages(plan, 3));
        expect(await emit(format, withStages(plan, 3))).to.deep.equal(first);
        for (const [path, text] of first) {
          const opening = path.endsWith('.md') ? '<!-- Generated by ' : '# Generated by ';
          expect(text.startsWith(`${opening}\`agentctl plan --emit ${format}\` from workflow Fan.Out_Demo, plan ${plan.planDigest}.`), path).to.equal(true);
        }
      });

      it(`${format}: refuses a plan that cannot be sharded (through the CLI too), naming the reason, and one without a shard count`, async () => {
        const unshardable = await refusal(format, notShardable(plan));
        expect(unshardable).to.deep.include({ code: `${PREFIX[format]}NOT_SHARDABLE`, exitCode: 2 });
        expect(unshardable.message).to.contain('cannot be split into shards (single_item: the fan-out work has one item)');
        const noCount = await refusal(format, withStages(plan, null));
        expect(noCount).to.deep.include({ code: `${PREFIX[format]}NO_SHARDS`, exitCode: 2 });
        expect(noCount.message).to.contain('has stages but no shard count: add --shards N');
        const plain = state.ws.write('plain.yaml', workflow({ policy: { approval: 'never' }, actions: { assign: { kind: 'builtin.assign' } }, tasks: [{ id: 'one', uses: 'action:assign', with: { a: 1 } }] }, 'plain'));
        const cli = errorDocument(runCli(['plan', plain, '--shards', '2', '--emit', format, '--out', state.ws.file('out'), '--output', 'json']), 2);
        expect(cli.diagnostics[0]).to.deep.include({ code: `${PREFIX[format]}NOT_SHARDABLE`, message: `--emit ${format}: workflow plain cannot be split into shards (no_fanout: workflow plain has no foreach or matrix to split)` });
        expect(existsSync(state.ws.file('out'))).to.equal(false);
      });

      it(`${format}: plan FILE --shards 3 --emit ${format} writes what the emitter makes of the plan \`plan --shards 3\` prints`, async () => {
        const file = state.ws.write('flows/wf.yaml', FANOUT);
        const printed = outcome(runCli(['plan', file, '--shards', '3', '--output', 'json']), 0).data;
        expect(printed.stages).to.deep.equal(withStages(plan, 3).stages);
        const options = format === 'github-matrix' ? ['--emit-option', 'runner=npx'] : ['--emit-option', 'image=agentctl:local'];
        const emitted = outcome(runCli(['plan', file, '--shards', '3', '--emit', format, '--out', state.ws.file('out'), ...options, '--output', 'json']), 0).data;
        const expected = await emit(format, printed, format === 'github-matrix' ? { runner: 'npx' } : { image: 'agentctl:local' }, file);
        expect(emitted.files.map((entry: { path: string }) => entry.path)).to.deep.equal([...expected.keys()]);
        for (const [path, text] of expected) expect(readFileSync(state.ws.file(join('out', path)), 'utf8'), path).to.equal(text);
      });

      it(`${format}: through the CLI, a plan without stages is refused with "add --shards N" and nothing is written`, () => {
        const file = state.ws.write('flows/wf.yaml', FANOUT);
        const error = errorDocument(runCli(['plan', file, '--emit', format, '--out', state.ws.file('out'), '--output', 'json']), 2);
        expect(error.diagnostics[0]).to.deep.include({
          code: `${PREFIX[format]}NO_SHARDS`,
          message: `--emit ${format}: the plan of workflow Fan.Out_Demo has no stages: add --shards N`,
          help: `emit with a shard count: agentctl plan FILE --emit ${format} --shards N --out DIR`,
          plugin: `builtin.emitter.${format}`,
          hook: `emitter:${format}`,
        });
        expect(existsSync(state.ws.file('out'))).to.equal(false);
      });

      it(`${format}: through the CLI, an unknown or invalid option is a usage error naming it`, () => {
        const file = state.ws.write('flows/wf.yaml', FANOUT);
        const unknownOption = errorDocument(runCli(['plan', file, '--emit', format, '--out', state.ws.file('out'), '--emit-option', 'shardz=3', '--output', 'json']), 2);
        expect(unknownOption.diagnostics[0].code).to.equal('AGENTCTL_E_USAGE');
        expect(unknownOption.diagnostics[0].message).to.contain(`the options of emitter ${format} do not match`).and.to.contain('shardz');
        const bad = format === 'github-matrix' ? ['runner=helm', 'runner'] : ['name=Not_A_Label', 'name'];
        const invalid = errorDocument(runCli(['plan', file, '--emit', format, '--out', state.ws.file('out'), '--emit-option', bad[0]!, '--output', 'json']), 2);
        expect(invalid.diagnostics[0].message).to.contain(`${bad[1]}: `);
        expect(existsSync(state.ws.file('out'))).to.equal(false);
      });
    }

    it('write no secret value: a canary in the environment of plan reaches no emitted byte', async () => {
      const canary = unique('canary');
      const file = state.ws.write(
        'flows/wf.yaml',
        workflow(
          {
            policy: { approval: 'never', processAllowlist: ['sh'], environmentAllowlist: ['TOKEN'] },
            actions: { assign: { kind: 'builtin.assign' }, fetch: { kind: 'builtin.shell.exec', command: 'sh', args: ['-c', 'echo "$TOKEN" > /dev/null'], env: { TOKEN: { env: 'SCALE_TOKEN' } } } },
            tasks: [
              { id: 'manifest', uses: 'action:fetch' },
              { id: 'work', uses: 'action:assign', needs: ['manifest'], foreach: { items: ['a', 'b', 'c', 'd', 'e'], as: 'item' }, with: { item: '${{ vars.item }}' } },
              { id: 'combine', uses: 'action:assign', needs: ['work'], with: { all: '${{ tasks.work.output }}' } },
            ],
          },
          'Fan.Out_Demo',
        ),
      );
      const result = runCli(['plan', file, '--output', 'json'], { env: baseEnv({ SCALE_TOKEN: canary }) });
      const document = outcome(result, 0).data;
      for (const format of FORMATS) {
        for (const [, text] of await emit(format, withStages(document, 3), format === 'github-matrix' ? { secrets: ['SCALE_TOKEN'] } : { envFromSecret: 'scale-token' })) expect(text).to.not.contain(canary);
      }
      assertNoCanary(canary, state.ws.dir, result.stdout, result.stderr);
    });
  });
});
