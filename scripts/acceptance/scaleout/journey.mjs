// The scale-out journey: a workflow emitted as Kubernetes Jobs (`plan --emit k8s-indexed-job`), the three Jobs run by
// the Podman Job runner as a cluster would run them, and the gathered run held against a single-machine run of the
// same workflow: the same output, every fan-out effect exactly once (the workspace's effects log and the shards'
// ledgers), `inspect` and `report` of the gathered run. Optionally one shard's pod is killed mid-run.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parse } from 'yaml';
import { createCluster } from './cluster.mjs';
import { readManifests } from './manifest.mjs';
import { podLines, runJob, startJob } from './job-runner.mjs';

/** Runs the checkout's CLI on the host (what a user's machine does to emit) and returns its one JSON document. */
export function hostCli(root, args) {
  const result = spawnSync(process.execPath, [join(root, 'bin', 'agentctl.js'), ...args, '--output', 'json', '--color', 'never'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`agentctl ${args.join(' ')} exited ${result.status}: ${result.stderr.slice(0, 2000)}`);
  return JSON.parse(result.stdout);
}

/** The one JSON document a pod printed, checked to be of `kind`. */
export function podDocument(pod, kind) {
  const lines = pod.stdout.split('\n').filter((line) => line.trim() !== '');
  assert.equal(lines.length, 1, `pod ${pod.name} printed ${lines.length} lines on stdout; stderr: ${pod.stderr.slice(0, 1500)}`);
  const document = JSON.parse(lines[0]);
  assert.equal(document.kind, kind, `pod ${pod.name} printed a ${document.kind}: ${lines[0].slice(0, 1500)}`);
  return document;
}

/** The three Jobs of an emitted folder, told apart by what their container runs. */
export function emittedJobs(folder) {
  const documents = readManifests(readdirSync(folder).filter((name) => /\.ya?ml$/.test(name)).sort().map((name) => join(folder, name)));
  const jobs = documents.map(({ manifest }) => manifest).filter((manifest) => manifest?.kind === 'Job');
  const argsOf = (job) => job.spec.template.spec.containers[0].args ?? [];
  const prepare = jobs.find((job) => argsOf(job).includes('--stage'));
  const shards = jobs.find((job) => job.spec.completionMode === 'Indexed');
  const gather = jobs.find((job) => argsOf(job)[0] === 'runs' && argsOf(job)[1] === 'gather');
  assert.ok(prepare && shards && gather && jobs.length === 3, `expected a prepare Job, an Indexed Job and a gather Job in ${folder}; found ${jobs.map((job) => job.metadata?.name).join(', ')}`);
  return { prepare, shards, gather };
}

/** A Job of one pod like `template`'s Job, running `args` instead (inspect, report, a whole run). */
export function commandJob(template, name, args) {
  const job = structuredClone(template);
  job.metadata = { name };
  job.spec = { backoffLimit: 0, template: job.spec.template };
  job.spec.template.spec.containers[0].args = args;
  return job;
}

/** The storage the emitted Jobs name: the workflow in their ConfigMap (under /config's file name) and their claims. */
function clusterFor(jobs, { root, workflow, images, extraMounts }) {
  const configMaps = {};
  const claims = [];
  for (const job of Object.values(jobs)) {
    const spec = job.spec.template.spec;
    const mount = spec.containers[0].volumeMounts.find((candidate) => candidate.mountPath === '/config');
    for (const volume of spec.volumes) {
      if (volume.configMap && volume.name === mount?.name) {
        const file = spec.containers[0].args.find((arg) => arg.startsWith('/config/'));
        configMaps[volume.configMap.name] = { [basename(file)]: readFileSync(workflow, 'utf8') };
      }
      if (volume.persistentVolumeClaim) claims.push(volume.persistentVolumeClaim.claimName);
    }
  }
  const manifests = [...new Set(claims)].map((name) => ({ manifest: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name } } }));
  return createCluster({ root, manifests, configMaps, images, extraMounts });
}

/** Where a pod's mount of `target` is on the host. */
const hostPath = (pod, target) => pod.mounts.find((mount) => mount.target === target)?.source;

/** Runs a Job to its end and asserts it completed, with each pod's line in the message when it did not. */
async function completed(job, cluster, options) {
  const result = await runJob(job, cluster, options);
  assert.equal(result.status, 'Complete', `Job ${result.name}: ${result.reason} ${result.message ?? ''}\n${podLines(result).join('\n')}\n${result.pods.map((pod) => pod.stderr.slice(0, 1500)).join('\n')}`);
  return result;
}

/**
 * @param {{
 *   checkout: string,            the agentctl checkout whose CLI emits (and whose dist/ a dev image runs)
 *   workflow: string,            the workflow file (examples/scale-out.yaml)
 *   root: string,                a fresh folder for everything the journey makes
 *   image: string,               the image the Jobs run (`--emit-option image=`)
 *   shards: number,
 *   kill?: number,               a shard index whose first pod is killed once it has recorded an effect
 *   extraMounts?: any[], images?: Record<string, string>,
 *   log?: (line: string) => void,
 * }} options
 */
export async function scaleOutJourney({ checkout, workflow, root, image, shards, kill, extraMounts = [], images = {}, log = () => {} }) {
  const out = join(root, 'emitted');
  const emitted = hostCli(checkout, ['plan', workflow, '--emit', 'k8s-indexed-job', '--shards', String(shards), '--out', out, '--emit-option', `image=${image}`]);
  assert.equal(emitted.kind, 'PlanEmit');
  const jobs = emittedJobs(out);
  const stages = hostCli(checkout, ['plan', workflow, '--stages', '--shards', String(shards)]).data.stages;
  assert.equal(stages.shardable, true, `not shardable: ${JSON.stringify(stages.reason)}`);
  const items = itemNames(workflow, stages.fanout.taskId);
  assert.equal(items.length, stages.fanout.items);

  const cluster = clusterFor(jobs, { root: join(root, 'cluster'), workflow, images, extraMounts });
  const prepare = await completed(jobs.prepare, cluster);
  log(podLines(prepare).join('\n'));
  const prepared = podDocument(prepare.pods.at(-1), 'RunOutcome');
  assert.equal(prepared.data.state, 'succeeded');
  const workspace = hostPath(prepare.pods[0], '/workspace');
  const state = hostPath(prepare.pods[0], '/state');

  const shardRun = await runShards(jobs.shards, cluster, { kill, items, stages, workspace, state, log });
  const gather = await completed(jobs.gather, cluster);
  log(podLines(gather).join('\n'));
  const gathered = podDocument(gather.pods.at(-1), 'RunOutcome');
  assert.equal(gathered.data.state, 'succeeded');

  // The same workflow whole, in a pod of the same image on storage of its own.
  const single = clusterFor(jobs, { root: join(root, 'single'), workflow, images, extraMounts });
  const whole = await completed(commandJob(jobs.gather, 'single-machine', ['run', jobs.gather.spec.template.spec.containers[0].args[2], '--db', '/state/whole/runtime.db', '--workspace', '/workspace', '--output', 'json']), single);
  const reference = podDocument(whole.pods[0], 'RunOutcome');
  assert.deepEqual(gathered.data.output, reference.data.output, 'the gathered run\'s output equals the single-machine run\'s');

  // Exactly once, outside the ledger: each item's render appended one line to the shared workspace's log.
  const logged = effectsLog(workspace);
  assert.deepEqual([...logged].sort(), [...items].sort(), `each item's effect happened exactly once (effects log: ${logged.join(' ')})`);
  // And in the ledgers: across every run of every shard ledger, each item's process effect happened once.
  const counts = await succeededEffects(cluster, jobs.gather, shards);
  const renders = Object.entries(counts).filter(([, entry]) => entry.operation === 'process.exec');
  assert.equal(renders.length, items.length, `process effects in the shard ledgers: ${JSON.stringify(counts)}`);
  for (const [taskId, entry] of renders) assert.equal(entry.count, 1, `${taskId}: its effect happened ${entry.count} times across the shard runs`);

  // The gathered run is a run like any other.
  const gatherArgs = jobs.gather.spec.template.spec.containers[0].args;
  const gatherDb = gatherArgs[gatherArgs.indexOf('--db') + 1];
  const inspected = await completed(commandJob(jobs.gather, 'inspect-gathered', ['inspect', gathered.data.runId, '--db', gatherDb, '--output', 'json']), cluster);
  const inspection = podDocument(inspected.pods[0], 'RunInspection');
  assert.equal(inspection.data.run.state, 'succeeded');
  const reportFile = `${gatherDb.replace(/\/[^/]+$/, '')}/report.md`;
  const reported = await completed(commandJob(jobs.gather, 'report-gathered', ['report', gathered.data.runId, '--db', gatherDb, '--format', 'markdown', '--out', reportFile, '--output', 'json']), cluster);
  assert.equal(JSON.parse(reported.pods[0].stdout.trim()).ok, true);
  const report = readFileSync(join(state, reportFile.replace(/^\/state\//, '')), 'utf8');
  assert.match(report, new RegExp(gathered.data.runId));

  return { gathered, reference, prepare, shards: shardRun, gather, logged, counts, inspection };
}

/** The item names of the fan-out task (a `foreach` list), in order. */
function itemNames(workflow, taskId) {
  const task = parse(readFileSync(workflow, 'utf8')).spec.tasks.find((candidate) => candidate.id === taskId);
  assert.ok(task?.foreach?.items, `task ${taskId} is not a foreach with a static list`);
  return task.foreach.items.map(String);
}

/**
 * Runs the shards' Indexed Job. With `kill`, the first pod of that index is killed from outside as soon as one of its
 * items' effects is in the log. The Job's own policy then replaces the pod (a disruption is not counted). When the
 * index fails instead (a replacement that finds an effect in doubt stops with exit 3, which the Job does not retry),
 * the journey does what an operator does: it waits until the killed pod's lease on its run has expired, reconciles
 * each effect in doubt in that shard's ledger against the effects log (the ground truth of this workflow), then runs
 * that index again alone.
 */
async function runShards(job, cluster, { kill, items, stages, workspace, state, log }) {
  let killedAt = null;
  const mine = kill === undefined ? [] : stages.assignment.find((entry) => entry.shard === kill).items.map((index) => items[index]);
  const execution = startJob(job, cluster, {
    onPod: ({ type, pod }) => {
      if (type !== 'started' || pod.index !== kill || killedAt !== null) return;
      killedAt = 'waiting';
      const poll = setInterval(() => {
        if (pod.exited) return clearInterval(poll);
        const lines = effectsLog(workspace);
        if (lines.some((line) => mine.includes(line))) {
          clearInterval(poll);
          killedAt = lines.filter((line) => mine.includes(line)).length;
          execution.kill(kill);
        }
      }, 25);
    },
  });
  let result = await execution.done;
  log(podLines(result).join('\n'));
  if (kill !== undefined) {
    assert.equal(typeof killedAt, 'number', `shard ${kill} ended before any of its items' effects was seen: nothing was killed`);
    assert.ok(result.pods.find((pod) => pod.index === kill && pod.disrupted), `no pod of shard ${kill} was killed`);
    if (result.failedIndexes.includes(kill)) {
      const reconciled = await reconcileInDoubt(cluster, job, shardDb(job, kill), workspace, state);
      log(`operator: ${reconciled.length} effect(s) in doubt in shard ${kill}'s ledger reconciled (${reconciled.join(', ') || 'none'})`);
      const again = await runJob(job, cluster, { indexes: [kill] });
      log(podLines(again).join('\n'));
      assert.equal(again.status, 'Complete', `shard ${kill} run again alone: ${again.reason}\n${again.pods.map((pod) => `${pod.stdout.slice(0, 800)}${pod.stderr.slice(0, 800)}`).join('\n')}`);
      result = { ...result, status: again.status, pods: [...result.pods, ...again.pods], again, reconciled };
    }
  }
  assert.equal(result.status, 'Complete', `the shards Job: ${result.reason} ${result.message ?? ''}\n${result.pods.map((pod) => `${pod.stdout.slice(0, 600)}${pod.stderr.slice(0, 600)}`).join('\n')}`);
  return { ...result, killedAfterEffects: killedAt };
}

/** The lines of the workspace's effects log (none before the first effect). */
function effectsLog(workspace) {
  try {
    return readFileSync(join(workspace, 'out', 'effects.log'), 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

/** The ledger path (inside the pod) of shard `index`, from the shards Job's arguments. */
function shardDb(job, index) {
  const args = job.spec.template.spec.containers[0].args;
  return args[args.indexOf('--db') + 1].replace('$(JOB_COMPLETION_INDEX)', String(index));
}

/**
 * The runs of a ledger once none of them is driven any more. A killed pod's run keeps its lease until it expires (a
 * minute after its last renewal): its owner was another host (the pod), so no other pod can tell it is gone sooner.
 */
async function untilNoneDriven(cluster, template, db, timeoutMs = 120_000) {
  const started = performance.now();
  for (;;) {
    const listed = await completed(commandJob(template, 'operator-runs', ['runs', 'list', '--db', db, '--output', 'json']), cluster);
    const runs = podDocument(listed.pods[0], 'RunList').data.runs;
    if (!runs.some((run) => run.liveness === 'active')) return runs;
    assert.ok(performance.now() - started < timeoutMs, `a run of ${db} is still driven after ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 5000));
  }
}

/**
 * Reconciles every effect in doubt of every unfinished run in a shard ledger: a render whose region is in the effects
 * log happened (`applied`, with the output the step prints), one whose region is not did not (`not-applied`).
 */
async function reconcileInDoubt(cluster, template, db, workspace, state) {
  const done = [];
  const logged = effectsLog(workspace);
  const runs = await untilNoneDriven(cluster, template, db);
  for (const run of runs.filter((candidate) => candidate.state !== 'succeeded')) {
    const listed = await completed(commandJob(template, 'operator-effects', ['effects', 'list', run.runId, '--db', db, '--output', 'json']), cluster);
    for (const effect of podDocument(listed.pods[0], 'EffectList').data.effects) {
      if (!effect.inDoubt || effect.reconciled) continue;
      const region = effect.input?.args?.[2];
      const applied = logged.includes(region);
      const args = ['effects', 'reconcile', effect.effectId, '--db', db, '--status', applied ? 'applied' : 'not-applied', '--reason', `${region} is ${applied ? '' : 'not '}in out/effects.log`, '--actor', 'scale-out acceptance', '--output', 'json'];
      if (applied) {
        mkdirSync(join(state, 'operator'), { recursive: true });
        writeFileSync(join(state, 'operator', `${effect.effectId}.json`), JSON.stringify({ exitCode: 0, stdout: region, stderr: '' }));
        chmodSync(join(state, 'operator', `${effect.effectId}.json`), 0o644);
        args.push('--result-file', `/state/operator/${effect.effectId}.json`);
      }
      await completed(commandJob(template, 'operator-reconcile', args), cluster);
      done.push(`${effect.taskId} ${applied ? 'applied' : 'not applied'}`);
    }
  }
  return done;
}

/** Across every run recorded in every shard ledger: how many times each task's effects happened, by task. */
async function succeededEffects(cluster, template, shards) {
  const counts = {};
  for (let shard = 0; shard < shards; shard += 1) {
    const db = `/state/shards/${shard}/runtime.db`;
    const listed = await completed(commandJob(template, `list-shard-${shard}`, ['runs', 'list', '--db', db, '--output', 'json']), cluster);
    const runs = podDocument(listed.pods[0], 'RunList').data.runs;
    for (const run of runs) {
      const inspected = await completed(commandJob(template, `inspect-shard-${shard}`, ['inspect', run.runId, '--db', db, '--output', 'json']), cluster);
      for (const effect of podDocument(inspected.pods[0], 'RunInspection').data.effects) {
        // It happened: it succeeded, or it was left in doubt and an operator recorded that it was applied.
        if (effect.state !== 'succeeded' && effect.reconciled !== 'applied') continue;
        counts[effect.taskId] ??= { operation: effect.operation, count: 0, runs: [] };
        counts[effect.taskId].count += 1;
        counts[effect.taskId].runs.push(run.runId);
      }
    }
  }
  return counts;
}
