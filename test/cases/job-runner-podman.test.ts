// The Podman Job runner (scripts/acceptance/scaleout/) on hand-written Jobs, against the real Podman: what a Kubernetes
// Job controller and kubelet would do with the same manifests, asserted on the files the pods write and their exits.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { createCluster, type Cluster } from '../../scripts/acceptance/scaleout/cluster.mjs';
import { runJob, startJob } from '../../scripts/acceptance/scaleout/job-runner.mjs';
import { ENGINES_SKIP_REASON, testEngines } from '../support/engines.js';

const SECURE = { runAsUser: 65532, runAsGroup: 65532, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } };
const INDEX_FIELD = "metadata.annotations['batch.kubernetes.io/job-completion-index']";

/** A Job of one busybox container running `script` under sh, with a claim at /state and an emptyDir at /tmp. */
function shellJob(name: string, image: string, script: string, spec: Record<string, unknown> = {}, container: Record<string, unknown> = {}): any {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name },
    spec: {
      ...spec,
      template: {
        spec: {
          restartPolicy: 'Never',
          volumes: [
            { name: 'state', persistentVolumeClaim: { claimName: 'state' } },
            { name: 'config', configMap: { name: 'settings' } },
            { name: 'tmp', emptyDir: {} },
          ],
          containers: [{
            name: 'main',
            image,
            command: ['/bin/sh', '-c'],
            args: [script],
            securityContext: SECURE,
            volumeMounts: [{ name: 'state', mountPath: '/state' }, { name: 'config', mountPath: '/config' }, { name: 'tmp', mountPath: '/tmp' }],
            ...container,
          }],
        },
      },
    },
  };
}

describe('Podman Job runner: hand-written Jobs', function () {
  this.timeout(120_000);
  const engines = testEngines();
  if (!engines) {
    it(`is pending: ${ENGINES_SKIP_REASON}`);
    return;
  }
  const busybox = engines.podman.images.busybox;
  let root: string;
  let cluster: Cluster;
  let state: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'agentctl-job-runner-'));
    cluster = createCluster({
      root,
      manifests: [{ manifest: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'state' } } }],
      configMaps: { settings: { 'greeting.txt': 'hello from the ConfigMap\n' } },
    });
    state = cluster.claimFolder('state', { uid: 65532, gid: 65532 });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('runs a Job pod as its security context says: user 65532, read-only root, the ConfigMap read-only, /tmp writable', async () => {
    const script = 'id -u > /state/user; cat /config/greeting.txt > /state/greeting; echo x > /tmp/x && echo tmp-ok > /state/tmp;'
      + ' (echo x > /root-file) 2>/dev/null || echo refused > /state/root; (echo x > /config/new) 2>/dev/null || echo refused > /state/config';
    const result = await runJob(shellJob('secure', busybox, script), cluster);
    expect(result.status, result.pods[0]?.stderr).to.equal('Complete');
    const read = (name: string) => readFileSync(join(state, name), 'utf8');
    expect([read('user'), read('greeting'), read('tmp'), read('root'), read('config')]).to.deep.equal(['65532\n', 'hello from the ConfigMap\n', 'tmp-ok\n', 'refused\n', 'refused\n']);
    expect(result.pods.map((pod) => [pod.index, pod.exitCode, pod.outcome])).to.deep.equal([[null, 0, 'succeeded']]);
  });

  it('runs an Indexed Job: each index once, $(VAR) expanded from env and the downward API, $$ escaped, at most parallelism at once', async () => {
    const script = 'mkdir -p /state/out; echo "$(INDEX) $(JOB_COMPLETION_INDEX) $$(MISSING) $(MISSING)" > /state/out/$(INDEX); sleep 1';
    const job = shellJob('indexed', busybox, script, { completionMode: 'Indexed', completions: 4, parallelism: 2 }, {
      env: [{ name: 'INDEX', valueFrom: { fieldRef: { fieldPath: INDEX_FIELD } } }],
    });
    const result = await runJob(job, cluster);
    expect(result.status).to.equal('Complete');
    expect(result.succeededIndexes).to.deep.equal([0, 1, 2, 3]);
    for (const index of [0, 1, 2, 3]) {
      // The shell then sees `$(MISSING)` twice (kept as written) and runs it: a command that does not exist.
      expect(readFileSync(join(state, 'out', String(index)), 'utf8')).to.equal(`${index} ${index}  \n`);
    }
    const spans = result.pods.map((pod) => [pod.startedAt!, pod.endedAt!]);
    const overlapping = (at: number) => spans.filter(([start, end]) => start <= at && at < end).length;
    expect(Math.max(...spans.map(([start]) => overlapping(start)))).to.equal(2);
  });

  it('gives a container a Secret\'s keys (envFrom, secretKeyRef) through its environment, never on the engine\'s command line', async () => {
    const secretCluster = createCluster({
      root: join(root, 'secrets'),
      manifests: [
        { manifest: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'state' } } },
        { manifest: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'tokens' }, data: { API_TOKEN: Buffer.from('canary-7f3a').toString('base64') } } },
      ],
      configMaps: { settings: { 'greeting.txt': 'hi\n' } },
    });
    const job = shellJob('secrets', busybox, 'echo "$API_TOKEN $PREFIXED_API_TOKEN $ONE" > /state/env', {}, {
      envFrom: [{ secretRef: { name: 'tokens' } }, { secretRef: { name: 'tokens' }, prefix: 'PREFIXED_' }],
      env: [{ name: 'ONE', valueFrom: { secretKeyRef: { name: 'tokens', key: 'API_TOKEN' } } }],
    });
    const result = await runJob(job, secretCluster);
    expect(result.status, result.pods[0]?.stderr).to.equal('Complete');
    expect(readFileSync(join(secretCluster.claimFolder('state'), 'env'), 'utf8')).to.equal('canary-7f3a canary-7f3a canary-7f3a\n');
    expect(JSON.stringify(result.pods[0]!.command)).not.to.include('canary-7f3a');
  });

  it('mounts a claim with subPathExpr per index, the folder made for the pod', async () => {
    const job = shellJob('subpath', busybox, 'echo "$(JOB_COMPLETION_INDEX)" > /shard/index', { completionMode: 'Indexed', completions: 2, parallelism: 2 });
    job.spec.template.spec.containers[0].volumeMounts.push({ name: 'state', mountPath: '/shard', subPathExpr: 'shards/$(JOB_COMPLETION_INDEX)' });
    const result = await runJob(job, cluster);
    expect(result.status).to.equal('Complete');
    expect(readdirSync(join(state, 'shards')).sort()).to.deep.equal(['0', '1']);
    expect(readFileSync(join(state, 'shards', '1', 'index'), 'utf8')).to.equal('1\n');
  });

  it('fails an index at once on a FailIndex exit code, retries another exit per backoffLimitPerIndex, and fails the Job', async () => {
    const script = 'echo run >> /state/attempts-$(JOB_COMPLETION_INDEX); [ $(JOB_COMPLETION_INDEX) = 1 ] && exit 3; [ $(JOB_COMPLETION_INDEX) = 2 ] && exit 1; exit 0';
    const job = shellJob('failing', busybox, script, {
      completionMode: 'Indexed', completions: 3, parallelism: 3, backoffLimitPerIndex: 1,
      podFailurePolicy: { rules: [{ action: 'FailIndex', onExitCodes: { operator: 'In', values: [3] } }] },
    });
    const result = await runJob(job, cluster);
    expect([result.status, result.reason]).to.deep.equal(['Failed', 'FailedIndexes']);
    expect(result.succeededIndexes).to.deep.equal([0]);
    expect(result.failedIndexes).to.deep.equal([1, 2]);
    const attempts = (index: number) => readFileSync(join(state, `attempts-${index}`), 'utf8').split('\n').filter(Boolean).length;
    expect([attempts(0), attempts(1), attempts(2)]).to.deep.equal([1, 1, 2]);
    expect(result.pods.filter((pod) => pod.index === 1).map((pod) => [pod.exitCode, pod.rule])).to.deep.equal([[3, 'FailIndex']]);
  });

  it('replaces a pod killed from outside when a rule ignores DisruptionTarget, and counts the kill when none does', async () => {
    const script = 'echo start >> /state/runs-$(JOB_COMPLETION_INDEX); sleep 3; echo done >> /state/runs-$(JOB_COMPLETION_INDEX)';
    const rules = [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }];
    for (const [name, policy, expected] of [['ignored', { rules }, 'Complete'], ['counted', undefined, 'Failed']] as const) {
      const job = shellJob(name, busybox, script, { completionMode: 'Indexed', completions: 2, parallelism: 2, backoffLimitPerIndex: 0, ...(policy ? { podFailurePolicy: policy } : {}) });
      let killed = false;
      const execution = startJob(job, cluster, {
        onPod: ({ type, pod }) => {
          if (type === 'started' && pod.index === 1 && !killed) {
            killed = true;
            setTimeout(() => execution.kill(1), 1500);
          }
        },
      });
      const result = await execution.done;
      expect(result.status, name).to.equal(expected);
      const index1 = result.pods.filter((pod) => pod.index === 1);
      expect(index1[0]).to.include({ exitCode: 137, disrupted: true, outcome: name === 'ignored' ? 'ignored' : 'failed' });
      expect(index1.length, name).to.equal(name === 'ignored' ? 2 : 1);
      rmSync(join(state, 'runs-1'));
    }
  });

  it('runs only the indexes asked for (one shard again) and reports each pod', async () => {
    const job = shellJob('one', busybox, 'echo $(JOB_COMPLETION_INDEX) >> /state/ran', { completionMode: 'Indexed', completions: 4, parallelism: 4 });
    const result = await runJob(job, cluster, { indexes: [2] });
    expect(result.status).to.equal('Complete');
    expect(readFileSync(join(state, 'ran'), 'utf8')).to.equal('2\n');
    expect(result.pods).to.have.length(1);
    expect(result.pods[0]!.durationMs).to.be.a('number').above(0);
  });

  it('refuses what it cannot honour instead of ignoring it', () => {
    const base = shellJob('refused', busybox, 'true');
    const cases: [string, (job: any) => void, RegExp][] = [
      ['a selector', (job) => (job.spec.selector = { matchLabels: { a: 'b' } }), /spec\.selector: not supported/],
      ['an init container', (job) => (job.spec.template.spec.initContainers = []), /spec\.initContainers: not supported/],
      ['lifecycle hooks', (job) => (job.spec.template.spec.containers[0].lifecycle = { preStop: {} }), /lifecycle: not supported/],
      ['a hostPath volume', (job) => (job.spec.template.spec.volumes[0] = { name: 'state', hostPath: { path: '/' } }), /hostPath: not supported/],
      ['restartPolicy OnFailure', (job) => (job.spec.template.spec.restartPolicy = 'OnFailure'), /only Never is supported/],
      ['two containers', (job) => job.spec.template.spec.containers.push({ name: 'b', image: busybox }), /exactly one container/],
      ['an env from a resource field', (job) => (job.spec.template.spec.containers[0].env = [{ name: 'A', valueFrom: { resourceFieldRef: { resource: 'limits.cpu' } } }]), /resourceFieldRef: not supported/],
      ['envFrom naming two sources', (job) => (job.spec.template.spec.containers[0].envFrom = [{ secretRef: { name: 'a' }, configMapRef: { name: 'b' } }]), /exactly one of secretRef and configMapRef/],
      ['FailIndex without backoffLimitPerIndex', (job) => (job.spec.podFailurePolicy = { rules: [{ action: 'FailIndex', onExitCodes: { operator: 'In', values: [1] } }] }), /FailIndex needs spec\.backoffLimitPerIndex/],
    ];
    for (const [name, change, message] of cases) {
      const job = structuredClone(base);
      change(job);
      expect(() => startJob(job, cluster), name).to.throw(message);
    }
  });

  it('fails the Job without starting a pod whose claim does not exist', async () => {
    const job = shellJob('unclaimed', busybox, 'true');
    job.spec.template.spec.volumes[0].persistentVolumeClaim.claimName = 'missing';
    const result = await runJob(job, cluster);
    expect([result.status, result.reason]).to.deep.equal(['Failed', 'PodSpecRefused']);
    expect(result.message).to.match(/persistentVolumeClaim missing: no such claim/);
  });
});
