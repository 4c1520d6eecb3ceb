// The scale-out plan emitters (k8s-indexed-job, github-matrix, argo): what each writes for a sharded plan, checked with
// the platform's own schema or parser (kubernetes-models, @actions/workflow-parser, Argo's Workflow schema with Ajv),
// the scale-out command contract in every job, and their options. The emitters get, through the real host's registry,
// the document `plan --output json` prints with the `stages` the cut gives this workflow (checked against
// `plan --shards` itself in plan-emitters-scale-out-common.test.ts), exactly as `plan --emit` does.
import { expect } from 'chai';
import { parse } from 'yaml';
import { githubProblems, kubernetesProblems, podSecurityProblems, secretProblems, shellSyntaxProblems, type PodSpec } from '../support/ci-recipe-checks.js';
import { runCli } from '../support/cli.js';
import { outcome, useWorkspace } from './helpers.js';
import { argoValidator, CONTRACT, emit, FANOUT, mountsOf, refusal, withStages } from './plan-emitters-support.js';

describe('plan emitters for scale-out: k8s-indexed-job, github-matrix, argo', function () {
  this.timeout(60_000);
  const state = useWorkspace();
  let plan: any;

  beforeEach(() => {
    plan = outcome(runCli(['plan', state.ws.write('flows/wf.yaml', FANOUT), '--output', 'json']), 0).data;
  });

  describe('k8s-indexed-job', () => {
    it('writes a prepare Job, an Indexed Job of the shards and a gather Job that pass the Kubernetes API schema, and a README', async () => {
      const files = await emit('k8s-indexed-job', withStages(plan, 3));
      expect([...files.keys()]).to.deep.equal(['00-prepare-job.yaml', '10-shards-job.yaml', '20-gather-job.yaml', 'README.md']);
      for (const [path, text] of files) {
        if (path.endsWith('.yaml')) expect(kubernetesProblems(text), path).to.deep.equal([]);
        expect(secretProblems(text), path).to.deep.equal([]);
      }
      const [prepare, shards, gather] = ['00-prepare-job.yaml', '10-shards-job.yaml', '20-gather-job.yaml'].map((path) => parse(files.get(path)!));
      expect([prepare.metadata.name, shards.metadata.name, gather.metadata.name]).to.deep.equal(['fan-out-demo-prepare', 'fan-out-demo-shards', 'fan-out-demo-gather']);
      expect(shards.metadata.annotations).to.deep.equal({ 'agentctl.dev/workflow': 'Fan.Out_Demo', 'agentctl.dev/plan-digest': plan.planDigest });
      expect(shards.spec).to.deep.include({ completionMode: 'Indexed', completions: 3, parallelism: 3, backoffLimitPerIndex: 1, activeDeadlineSeconds: 3600, ttlSecondsAfterFinished: 86400 });
      expect(shards.spec).to.not.have.property('maxFailedIndexes');
      expect(shards.spec).to.not.have.property('backoffLimit');
      expect(shards.spec.podFailurePolicy.rules).to.deep.equal([
        { action: 'FailIndex', onExitCodes: { containerName: 'agentctl', operator: 'In', values: [2, 3, 5, 6] } },
        { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
      ]);
      for (const job of [prepare, gather]) {
        expect(job.spec.backoffLimit).to.equal(0);
        expect(job.spec.podFailurePolicy.rules).to.deep.equal([{ action: 'FailJob', onExitCodes: { containerName: 'agentctl', operator: 'In', values: [3] } }]);
      }
      expect(prepare.spec.template.spec.containers[0].args).to.deep.equal(CONTRACT.prepare);
      expect(shards.spec.template.spec.containers[0].args).to.deep.equal(CONTRACT.shard('$(JOB_COMPLETION_INDEX)', 3));
      expect(gather.spec.template.spec.containers[0].args).to.deep.equal(CONTRACT.gather(3));
      expect(shards.spec.template.spec.containers[0].env).to.deep.equal([{ name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']" } } }]);
      for (const job of [prepare, shards, gather]) {
        const pod = job.spec.template.spec;
        expect(pod.restartPolicy).to.equal('Never');
        expect(pod.automountServiceAccountToken).to.equal(false);
        expect(pod.containers[0].image).to.equal('registry.example.com/agentctl:0.1.0');
        expect(pod.containers[0]).to.not.have.property('envFrom');
        expect(podSecurityProblems(pod, [])).to.deep.equal([]);
        expect(mountsOf(pod)).to.deep.equal({
          '/config': { name: 'config', configMap: { name: 'fan-out-demo-config' }, subPath: undefined, readOnly: true },
          '/workspace': { name: 'state', persistentVolumeClaim: { claimName: 'fan-out-demo-state' }, subPath: 'workspace', readOnly: false },
          '/state': { name: 'state', persistentVolumeClaim: { claimName: 'fan-out-demo-state' }, subPath: 'state', readOnly: false },
          '/tmp': { name: 'tmp', emptyDir: { medium: 'Memory', sizeLimit: '16Mi' }, subPath: undefined, readOnly: false },
        });
      }
      const readme = files.get('README.md')!;
      const commands = readme.split('\n').filter((line) => line.startsWith('kubectl '));
      expect(commands.slice(0, 5)).to.deep.equal([
        'kubectl create configmap fan-out-demo-config --from-file=wf.yaml=flows/wf.yaml',
        'kubectl apply -f state-claim.yaml    # once: the claim shown below, saved as state-claim.yaml',
        'kubectl apply -f 00-prepare-job.yaml && kubectl wait --for=condition=complete --timeout=3600s job/fan-out-demo-prepare',
        'kubectl apply -f 10-shards-job.yaml && kubectl wait --for=condition=complete --timeout=3600s job/fan-out-demo-shards',
        'kubectl apply -f 20-gather-job.yaml && kubectl wait --for=condition=complete --timeout=3600s job/fan-out-demo-gather',
      ]);
      const claim = /```yaml\n([\s\S]*?)```/.exec(readme)![1]!;
      expect(parse(claim)).to.deep.include({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'fan-out-demo-state' } });
    });

    it('takes every option: image, namespace, name, workflow path, ConfigMap, claim, limits, service account and a Secret by name', async () => {
      const options = {
        image: 'registry.example.com/agentctl@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
        namespace: 'batch',
        name: 'nightly',
        workflowPath: '/config/flows/nightly.yaml',
        configMap: 'nightly-flows',
        claim: 'shared.state',
        workspaceReadOnly: true,
        parallelism: 2,
        backoffLimitPerIndex: 3,
        maxFailedIndexes: 1,
        activeDeadlineSeconds: 600,
        ttlSecondsAfterFinished: 0,
        serviceAccountName: 'agentctl-runner',
        envFromSecret: 'agentctl-credentials',
      };
      const files = await emit('k8s-indexed-job', withStages(plan, 4), options);
      for (const [path, text] of files) if (path.endsWith('.yaml')) expect(kubernetesProblems(text), path).to.deep.equal([]);
      const shards = parse(files.get('10-shards-job.yaml')!);
      expect(shards.metadata).to.deep.include({ name: 'nightly-shards', namespace: 'batch' });
      expect(shards.spec).to.deep.include({ completions: 4, parallelism: 2, backoffLimitPerIndex: 3, maxFailedIndexes: 1, activeDeadlineSeconds: 600, ttlSecondsAfterFinished: 0 });
      const pod = shards.spec.template.spec;
      expect(pod.serviceAccountName).to.equal('agentctl-runner');
      expect(pod.automountServiceAccountToken).to.equal(false);
      expect(pod.containers[0].image).to.equal(options.image);
      expect(pod.containers[0].envFrom).to.deep.equal([{ secretRef: { name: 'agentctl-credentials' } }]);
      expect(pod.containers[0].args.slice(0, 2)).to.deep.equal(['run', '/config/flows/nightly.yaml']);
      expect(mountsOf(pod)['/config']).to.deep.include({ configMap: { name: 'nightly-flows' } });
      expect(mountsOf(pod)['/workspace']).to.deep.include({ persistentVolumeClaim: { claimName: 'shared.state' }, readOnly: true });
      expect(parse(files.get('20-gather-job.yaml')!).spec.template.spec.containers[0].args).to.include('/state/shards/3/runtime.db');
      expect(files.get('README.md')).to.contain('kubectl create configmap --namespace batch nightly-flows --from-file=flows/nightly.yaml=flows/wf.yaml');
    });

    it('refuses maxFailedIndexes above the shard count (exit 2, its own code)', async () => {
      const error = await refusal('k8s-indexed-job', withStages(plan, 2), { maxFailedIndexes: 3 });
      expect(error.code).to.equal('BUILTIN_EMITTER_K8S_INDEXED_JOB_E_OPTIONS');
      expect(error.exitCode).to.equal(2);
      expect(error.message).to.contain('--emit-option maxFailedIndexes=3 is more than the 2 shards');
    });

    it('a Job the API schema refuses is caught by the same check', async () => {
      const shards = (await emit('k8s-indexed-job', withStages(plan, 3))).get('10-shards-job.yaml')!;
      expect(kubernetesProblems(shards.replace('completionMode: Indexed', 'completionMode: Indexd'))).to.have.length(1);
      expect(kubernetesProblems(shards.replace('completions: 3', 'completions: three'))).to.have.length(1);
    });
  });

  describe('github-matrix', () => {
    it('writes a workflow the Actions parser accepts: prepare, a matrix of the shards, gather, run in the image', async () => {
      const files = await emit('github-matrix', withStages(plan, 3));
      expect([...files.keys()]).to.deep.equal(['.github/workflows/fan-out-demo.yml']);
      const text = files.get('.github/workflows/fan-out-demo.yml')!;
      expect(await githubProblems(text)).to.deep.equal([]);
      expect(secretProblems(text)).to.deep.equal([]);
      const workflow = parse(text);
      expect(Object.keys(workflow.jobs)).to.deep.equal(['prepare', 'shard', 'gather']);
      expect(workflow.env).to.deep.equal({ AGENTCTL_IMAGE: '${{ vars.AGENTCTL_IMAGE }}' });
      expect(workflow.jobs.shard.needs).to.equal('prepare');
      expect(workflow.jobs.shard.strategy).to.deep.equal({ 'fail-fast': false, matrix: { shard: [0, 1, 2] } });
      expect(workflow.jobs.gather.needs).to.equal('shard');
      const uses = Object.values(workflow.jobs).flatMap((job: any) => job.steps.map((step: any) => step.uses).filter(Boolean));
      expect(new Set(uses)).to.deep.equal(new Set(['actions/checkout@v4', 'actions/upload-artifact@v4', 'actions/download-artifact@v4']));
      const uploads = Object.fromEntries(Object.entries(workflow.jobs).map(([name, job]: [string, any]) => [name, job.steps.filter((step: any) => step.uses === 'actions/upload-artifact@v4').map((step: any) => step.with)]));
      expect(uploads.prepare).to.deep.equal([{ name: 'state-prepare', path: 'state/prepare/', 'retention-days': 7, 'if-no-files-found': 'warn' }]);
      expect(uploads.shard[0]).to.deep.include({ name: 'state-shard-${{ matrix.shard }}', path: 'state/shards/${{ matrix.shard }}/' });
      expect(uploads.gather[0]).to.deep.include({ name: 'state-gather', path: 'state/gather/' });
      expect(workflow.jobs.shard.steps[1]).to.deep.equal({ uses: 'actions/download-artifact@v4', with: { name: 'state-prepare', path: 'state/prepare' } });
      expect(workflow.jobs.gather.steps[1]).to.deep.equal({ uses: 'actions/download-artifact@v4', with: { pattern: 'state-shard-*', path: 'state/incoming' } });
      const scripts = Object.values(workflow.jobs).flatMap((job: any) => job.steps.map((step: any) => step.run).filter(Boolean)) as string[];
      for (const script of scripts) expect(shellSyntaxProblems(script), script).to.deep.equal([]);
      const script = (job: string, name: RegExp) => workflow.jobs[job].steps.find((step: any) => name.test(step.name ?? '')).run as string;
      const joined = (text: string) => text.replace(/ \\\n\s*/g, ' ');
      expect(joined(script('prepare', /prepare stage/))).to.contain(`"$AGENTCTL_IMAGE" ${CONTRACT.prepare.join(' ')}`);
      expect(joined(script('shard', /Run shard/))).to.contain(`"$AGENTCTL_IMAGE" run /config/wf.yaml --shard '\${{ matrix.shard }}/3' --from /state/prepare/runtime.db --db '/state/shards/\${{ matrix.shard }}/runtime.db' --workspace /workspace --output json`);
      const gather = joined(script('gather', /Gather/));
      expect(gather).to.contain(`"$AGENTCTL_IMAGE" ${CONTRACT.gather(3).join(' ')} > outcome.json`);
      expect(gather).to.contain('report "$AGENTCTL_RUN_ID" --format markdown --db /state/gather/runtime.db >> "$GITHUB_STEP_SUMMARY"');
      expect(joined(script('prepare', /prepare stage/))).to.contain('docker run --rm --read-only --user 65532:65532 --tmpfs /tmp:rw,noexec,nosuid,size=16m --cap-drop ALL --security-opt no-new-privileges --mount "type=bind,src=$GITHUB_WORKSPACE/flows,dst=/config,readonly" --mount "type=bind,src=$GITHUB_WORKSPACE,dst=/workspace,readonly" --mount "type=bind,src=$GITHUB_WORKSPACE/state,dst=/state"');
      expect(script('gather', /Put shard/)).to.contain('for i in $(seq 0 2); do mv "state/incoming/state-shard-$i" "state/shards/$i"; done');
    });

    it('runs agentctl from npm with npx, forwards named repository secrets, and takes its options', async () => {
      const options = { runner: 'npx', name: 'nightly-shards', package: '@agentctl/cli@0.1.0', nodeVersion: '22', secrets: ['OPENAI_API_KEY'], timeoutMinutes: 45, maxParallel: 2, retentionDays: 3 };
      const files = await emit('github-matrix', withStages(plan, 2), options);
      const text = files.get('.github/workflows/nightly-shards.yml')!;
      expect(await githubProblems(text)).to.deep.equal([]);
      expect(secretProblems(text)).to.deep.equal([]);
      const workflow = parse(text);
      expect(workflow.name).to.equal('nightly-shards');
      expect(workflow).to.not.have.property('env');
      expect(workflow.jobs.shard.strategy).to.deep.equal({ 'fail-fast': false, 'max-parallel': 2, matrix: { shard: [0, 1] } });
      for (const job of Object.values(workflow.jobs) as any[]) {
        expect(job['timeout-minutes']).to.equal(45);
        expect(job.steps[1]).to.deep.equal({ uses: 'actions/setup-node@v4', with: { 'node-version': '22' } });
        const stage = job.steps.find((step: any) => step.env !== undefined);
        expect(stage.env).to.deep.equal({ OPENAI_API_KEY: '${{ secrets.OPENAI_API_KEY }}' });
        expect(stage.run).to.match(/^(code=0\n)?npx --yes --package=@agentctl\/cli@0\.1\.0 -- agentctl (run|runs gather) flows\/wf\.yaml /);
        expect(job.steps.filter((step: any) => step.with?.['retention-days'] !== undefined).map((step: any) => step.with['retention-days'])).to.deep.equal([3]);
      }
      expect(workflow.jobs.prepare.steps[2].run).to.equal('npx --yes --package=@agentctl/cli@0.1.0 -- agentctl run flows/wf.yaml --stage prepare --fanout work --db state/prepare/runtime.db --workspace . --output json');
      expect(workflow.jobs.shard.steps[3].run).to.equal("npx --yes --package=@agentctl/cli@0.1.0 -- agentctl run flows/wf.yaml --shard '${{ matrix.shard }}/2' --from state/prepare/runtime.db --db 'state/shards/${{ matrix.shard }}/runtime.db' --workspace . --output json");
      expect(text).to.not.contain('sudo');
    });

    it('the parser refuses a broken workflow', async () => {
      const text = (await emit('github-matrix', withStages(plan, 3))).get('.github/workflows/fan-out-demo.yml')!;
      expect(await githubProblems(text.replace('needs: shard', 'needs: shards'))).to.have.length.above(0);
      expect(await githubProblems(text.replace('  gather:\n    runs-on:', '  gather:\n    runs-onn:'))).to.have.length.above(0);
    });
  });

  describe('argo', () => {
    it('writes a Workflow the Argo schema accepts: a DAG of prepare, the shards over withSequence, gather', async () => {
      const files = await emit('argo', withStages(plan, 3));
      expect([...files.keys()]).to.deep.equal(['workflow.yaml']);
      const text = files.get('workflow.yaml')!;
      const workflow = parse(text);
      expect(argoValidator()(workflow)).to.deep.equal([]);
      expect(secretProblems(text)).to.deep.equal([]);
      expect(workflow.metadata).to.deep.include({ generateName: 'fan-out-demo-', annotations: { 'agentctl.dev/workflow': 'Fan.Out_Demo', 'agentctl.dev/plan-digest': plan.planDigest } });
      expect(workflow.spec.entrypoint).to.equal('stages');
      const templates = Object.fromEntries(workflow.spec.templates.map((template: any) => [template.name, template]));
      expect(templates.stages.dag.tasks).to.deep.equal([
        { name: 'prepare', template: 'prepare' },
        { name: 'shard', template: 'shard', dependencies: ['prepare'], withSequence: { count: '3' }, arguments: { parameters: [{ name: 'index', value: '{{item}}' }] } },
        { name: 'gather', template: 'gather', dependencies: ['shard'] },
      ]);
      expect(templates.prepare.container.args).to.deep.equal(CONTRACT.prepare);
      expect(templates.shard.container.args).to.deep.equal(CONTRACT.shard('{{inputs.parameters.index}}', 3));
      expect(templates.gather.container.args).to.deep.equal(CONTRACT.gather(3));
      expect(templates.shard.retryStrategy).to.deep.equal({ limit: '1', retryPolicy: 'Always', expression: 'asInt(lastRetry.exitCode) not in [2, 3, 5, 6]' });
      for (const name of ['prepare', 'shard', 'gather']) {
        const pod: PodSpec = { securityContext: workflow.spec.securityContext, containers: [{ name, ...templates[name].container }], volumes: workflow.spec.volumes };
        expect(podSecurityProblems(pod, [])).to.deep.equal([]);
        expect(Object.keys(mountsOf(pod))).to.deep.equal(['/config', '/workspace', '/state', '/tmp']);
        expect(templates[name].container.image).to.equal('registry.example.com/agentctl:0.1.0');
      }
      expect(workflow.spec.volumes[1]).to.deep.equal({ name: 'state', persistentVolumeClaim: { claimName: 'fan-out-demo-state' } });
    });

    it('takes its options, and the schema refuses a misspelt or mistyped field', async () => {
      const options = { image: 'agentctl:local', namespace: 'argo', name: 'nightly', configMap: 'flows', claim: 'nightly-state', parallelism: 2, retries: 0, activeDeadlineSeconds: 120, ttlSecondsAfterFinished: 60, serviceAccountName: 'argo-workflow', envFromSecret: 'agentctl-credentials' };
      const workflow = parse((await emit('argo', withStages(plan, 4), options)).get('workflow.yaml')!);
      const validate = argoValidator();
      expect(validate(workflow)).to.deep.equal([]);
      expect(workflow.metadata).to.deep.include({ generateName: 'nightly-', namespace: 'argo' });
      expect(workflow.spec).to.deep.include({ serviceAccountName: 'argo-workflow', activeDeadlineSeconds: 120, ttlStrategy: { secondsAfterCompletion: 60 } });
      const templates = Object.fromEntries(workflow.spec.templates.map((template: any) => [template.name, template]));
      expect(templates.stages.parallelism).to.equal(2);
      expect(templates.stages.dag.tasks[1].withSequence).to.deep.equal({ count: '4' });
      expect(templates.shard.retryStrategy.limit).to.equal('0');
      expect(templates.shard.container).to.deep.include({ image: 'agentctl:local', envFrom: [{ secretRef: { name: 'agentctl-credentials' } }] });
      expect(workflow.spec.volumes.slice(0, 2)).to.deep.equal([{ name: 'config', configMap: { name: 'flows' } }, { name: 'state', persistentVolumeClaim: { claimName: 'nightly-state' } }]);
      templates.stages.dag.tasks[1].withSequenc = templates.stages.dag.tasks[1].withSequence;
      expect(validate(workflow)).to.deep.equal(['/spec/templates/0/dag/tasks/1 must NOT have additional properties (withSequenc)']);
      delete templates.stages.dag.tasks[1].withSequenc;
      templates.shard.container.args = 'run';
      expect(validate(workflow)).to.deep.equal(['/spec/templates/2/container/args must be array']);
    });
  });
});
