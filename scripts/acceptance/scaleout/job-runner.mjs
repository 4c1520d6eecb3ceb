// A Kubernetes Job controller over Podman, for running the manifests agentctl emits without a cluster: each pod is one
// `podman run` (pod.mjs), started as a Job's controller would start it. Indexed Jobs: `completions` indexes, at most
// `parallelism` pods at once, failed pods replaced per `backoffLimitPerIndex` (or the Job-wide `backoffLimit`), the
// `podFailurePolicy` rules (`FailJob`, `FailIndex`, `Ignore`, `Count`; `onExitCodes`, and `onPodConditions`
// `DisruptionTarget` for a pod killed from outside), `maxFailedIndexes`, `activeDeadlineSeconds`. Replacement pods
// start at once (a cluster waits an exponential back-off first).
//
//   import { startJob } from './job-runner.mjs';
//   const job = startJob(manifest, cluster, { onPod: (event) => ... });
//   await job.kill(2);              // the running pod of index 2, killed from outside (a disruption)
//   const result = await job.done;  // { name, status: 'Complete' | 'Failed', reason, pods, succeededIndexes, failedIndexes }
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { checkJob } from './manifest.mjs';
import { COMPLETION_INDEX_KEY, podmanArguments } from './pod.mjs';

/** Exit statuses of `podman run` itself (not of the container): the pod never started. */
const ENGINE_FAILURES = new Set([125]);

/** The first podFailurePolicy rule a finished pod matches, or undefined. */
export function matchingRule(rules, { exitCode, disrupted }) {
  return rules.find((rule) => {
    if (rule.onPodConditions !== undefined) {
      return rule.onPodConditions.some((condition) => condition.type === 'DisruptionTarget' && (condition.status ?? 'True') === 'True' && disrupted);
    }
    // A disrupted pod's exit code is the kill's: Kubernetes matches exit-code rules on it too.
    const listed = rule.onExitCodes.values.includes(exitCode);
    if (exitCode === 0) return false;
    return rule.onExitCodes.operator === 'In' ? listed : !listed;
  });
}

/** The user an image runs as (for runAsNonRoot), from the engine. */
function imageUser(engine) {
  const cache = new Map();
  return (image) => {
    if (!cache.has(image)) {
      const result = spawnSync(engine, ['image', 'inspect', '--format', '{{.Config.User}}', image], { encoding: 'utf8' });
      cache.set(image, result.status === 0 ? result.stdout.trim() : '');
    }
    return cache.get(image);
  };
}

/**
 * Starts a Job. `options.indexes` runs only those indexes of an Indexed Job (as a Job created again for one failed
 * shard would); `options.onPod` hears `{type: 'started' | 'finished', pod}` for each pod.
 * @param {any} manifest a batch/v1 Job
 * @param {ReturnType<typeof import('./cluster.mjs').createCluster>} cluster
 * @param {{ engine?: string, indexes?: number[], onPod?: (event: { type: string, pod: any }) => void, timeoutMs?: number }} [options]
 */
export function startJob(manifest, cluster, { engine = 'podman', indexes, onPod = () => {}, timeoutMs = 600_000 } = {}) {
  const job = checkJob(manifest);
  const spec = job.spec;
  const indexed = spec.completionMode === 'Indexed';
  const completions = spec.completions ?? 1;
  const parallelism = Math.max(1, spec.parallelism ?? 1);
  const rules = spec.podFailurePolicy?.rules ?? [];
  const perIndex = spec.backoffLimitPerIndex;
  const backoffLimit = spec.backoffLimit ?? 6;
  const template = spec.template;
  const userOf = imageUser(engine);

  const queue = indexed ? (indexes ?? [...Array(completions).keys()]).slice() : [];
  for (const index of queue) if (!Number.isInteger(index) || index < 0 || index >= completions) throw new Error(`Job ${job.metadata.name}: index ${index} is outside 0..${completions - 1}`);
  const failuresOf = new Map();
  const succeeded = new Set();
  const failed = new Set();
  const active = new Map();
  const pods = [];
  let nonIndexedSucceeded = 0;
  let failures = 0;
  let attempt = 0;
  let verdict;
  let finish;
  const done = new Promise((resolve) => (finish = resolve));

  const startedAt = performance.now();
  const deadline = spec.activeDeadlineSeconds === undefined ? undefined : setTimeout(() => end('Failed', 'DeadlineExceeded'), spec.activeDeadlineSeconds * 1000);
  const watchdog = setTimeout(() => end('Failed', 'RunnerTimeout'), timeoutMs);

  function end(status, reason, message) {
    if (verdict !== undefined) return;
    verdict = { status, reason, message };
    for (const pod of active.values()) killPod(pod, false);
    settle();
  }

  function settle() {
    if (verdict === undefined || active.size > 0) return;
    clearTimeout(deadline);
    clearTimeout(watchdog);
    finish({
      name: job.metadata.name,
      ...verdict,
      durationMs: performance.now() - startedAt,
      pods,
      succeededIndexes: [...succeeded].sort((a, b) => a - b),
      failedIndexes: [...failed].sort((a, b) => a - b),
    });
  }

  function killPod(pod, disrupted) {
    pod.disrupted ||= disrupted;
    pod.killRequested = true;
    const attemptKill = () => {
      if (pod.exited) return;
      const result = spawnSync(engine, ['kill', '--signal', 'KILL', pod.container], { encoding: 'utf8' });
      if (result.status !== 0) setTimeout(attemptKill, 100);
    };
    attemptKill();
  }

  function launch(index) {
    attempt += 1;
    const suffix = randomBytes(3).toString('hex');
    const name = indexed ? `${job.metadata.name}-${index}-${suffix}` : `${job.metadata.name}-${suffix}`;
    const annotations = { ...(template.metadata?.annotations ?? {}) };
    const labels = { ...(template.metadata?.labels ?? {}), 'job-name': job.metadata.name };
    if (indexed) {
      annotations[COMPLETION_INDEX_KEY] = String(index);
      labels[COMPLETION_INDEX_KEY] = String(index);
    }
    // The pod's host name, as Kubernetes sets it: JOB-INDEX for a pod of an Indexed Job (the same for each attempt of
    // an index), else the pod's name.
    const hostname = (indexed ? `${job.metadata.name}-${index}` : name).slice(0, 63);
    const podMeta = { name, hostname, namespace: job.metadata.namespace ?? 'default', annotations, labels, index: indexed ? index : null };
    const pod = { job: job.metadata.name, index: indexed ? index : null, attempt, name, container: `agentctl-job-${name}`, exitCode: null, durationMs: null, disrupted: false, outcome: null, stdout: '', stderr: '' };
    pods.push(pod);
    let args;
    let environment;
    try {
      ({ args, mounts: pod.mounts, environment } = podmanArguments({ spec: template.spec, pod: podMeta, name: pod.container, cluster, podFolder: cluster.podFolder(name), imageUser: userOf }));
    } catch (error) {
      pod.outcome = 'not started';
      pod.stderr = error.message;
      end('Failed', 'PodSpecRefused', `pod ${name}: ${error.message}`);
      return;
    }
    pod.command = [engine, ...args];
    const started = performance.now();
    pod.startedAt = Date.now();
    const child = spawn(engine, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...environment } });
    active.set(pod.name, pod);
    const out = [];
    const err = [];
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => err.push(chunk));
    child.on('error', (error) => err.push(Buffer.from(String(error.message))));
    child.on('close', (code) => {
      pod.exited = true;
      pod.exitCode = code;
      pod.durationMs = performance.now() - started;
      pod.endedAt = Date.now();
      pod.stdout = Buffer.concat(out).toString('utf8');
      pod.stderr = Buffer.concat(err).toString('utf8');
      active.delete(pod.name);
      finished(pod);
      onPod({ type: 'finished', pod });
      pump();
      settle();
    });
    onPod({ type: 'started', pod });
  }

  function finished(pod) {
    if (pod.exitCode === 0 && !pod.disrupted) {
      pod.outcome = 'succeeded';
      if (indexed) succeeded.add(pod.index);
      else nonIndexedSucceeded += 1;
      return;
    }
    if (verdict !== undefined) {
      pod.outcome = 'stopped';
      return;
    }
    if (ENGINE_FAILURES.has(pod.exitCode) && !pod.killRequested) {
      pod.outcome = 'not started';
      end('Failed', 'PodStartFailed', `pod ${pod.name}: ${pod.stderr.trim().slice(-600)}`);
      return;
    }
    const rule = matchingRule(rules, pod);
    pod.rule = rule?.action ?? null;
    if (rule?.action === 'Ignore') {
      pod.outcome = 'ignored';
      if (indexed) queue.unshift(pod.index);
      return;
    }
    pod.outcome = 'failed';
    if (rule?.action === 'FailJob') return end('Failed', 'PodFailurePolicy', `pod ${pod.name} exited ${pod.exitCode}: rule FailJob`);
    if (indexed && perIndex !== undefined) {
      const count = (failuresOf.get(pod.index) ?? 0) + 1;
      failuresOf.set(pod.index, count);
      if (rule?.action === 'FailIndex' || count > perIndex) {
        failed.add(pod.index);
        if (spec.maxFailedIndexes !== undefined && failed.size > spec.maxFailedIndexes) end('Failed', 'MaxFailedIndexesExceeded');
      } else {
        queue.unshift(pod.index);
      }
      return;
    }
    failures += 1;
    if (failures > backoffLimit) return end('Failed', 'BackoffLimitExceeded');
    if (indexed) queue.unshift(pod.index);
  }

  function pump() {
    if (verdict !== undefined) return;
    while (active.size < parallelism) {
      if (indexed) {
        if (queue.length === 0) break;
        launch(queue.shift());
      } else if (nonIndexedSucceeded + active.size < completions) {
        launch(null);
      } else {
        break;
      }
      if (verdict !== undefined) return;
    }
    if (active.size > 0) return;
    if (indexed && queue.length === 0) {
      if (failed.size > 0) end('Failed', 'FailedIndexes', `indexes ${[...failed].sort((a, b) => a - b).join(',')} failed`);
      else end('Complete', null);
    } else if (!indexed && nonIndexedSucceeded >= completions) {
      end('Complete', null);
    }
  }

  queueMicrotask(pump);
  return {
    name: job.metadata.name,
    done,
    /** Kills the running pod of `index` from outside (its condition becomes DisruptionTarget); false when none runs. */
    kill(index) {
      const pod = [...active.values()].find((candidate) => candidate.index === index);
      if (pod === undefined) return false;
      killPod(pod, true);
      return true;
    },
    /** The pods running now. */
    running: () => [...active.values()],
  };
}

/** Runs a Job to its end. */
export function runJob(manifest, cluster, options) {
  return startJob(manifest, cluster, options).done;
}

/** One line per pod: index, attempt, exit code, duration, outcome. */
export function podLines(result) {
  return result.pods.map((pod) => `${result.name} index ${pod.index ?? '-'} attempt ${pod.attempt}: exit ${pod.exitCode ?? '-'} in ${((pod.durationMs ?? 0) / 1000).toFixed(1)} s, ${pod.outcome}${pod.disrupted ? ' (killed from outside)' : ''}${pod.rule ? ` [${pod.rule}]` : ''}`);
}
