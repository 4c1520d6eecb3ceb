// Reading Kubernetes manifests for the Podman Job runner: multi-document YAML files, and the shape checks that refuse
// every field the runner cannot honour. A field that changes what a Job does is either implemented or refused with its
// path; fields that only steer a real cluster's scheduler or API server are accepted and have no effect here.
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';

/** The documents of YAML files, in file order, with the file each came from (`source`). */
export function readManifests(files) {
  const documents = [];
  for (const file of files) {
    for (const document of parseAllDocuments(readFileSync(file, 'utf8'))) {
      if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0].message}`);
      const value = document.toJS();
      if (value === null || value === undefined) continue;
      documents.push({ source: file, manifest: value });
    }
  }
  return documents;
}

/** Fields accepted with no effect on what runs here: scheduling, the API server's bookkeeping, image pulls. */
const INERT = {
  metadata: ['name', 'generateName', 'namespace', 'labels', 'annotations'],
  jobSpec: ['ttlSecondsAfterFinished', 'podReplacementPolicy'],
  podSpec: ['serviceAccountName', 'automountServiceAccountToken', 'nodeSelector', 'tolerations', 'affinity', 'priorityClassName', 'enableServiceLinks', 'imagePullSecrets', 'topologySpreadConstraints'],
  container: ['name', 'imagePullPolicy', 'terminationMessagePolicy', 'terminationMessagePath'],
};

/** The fields the runner implements, by object. */
const KNOWN = {
  job: ['apiVersion', 'kind', 'metadata', 'spec'],
  jobSpec: ['completions', 'parallelism', 'completionMode', 'backoffLimit', 'backoffLimitPerIndex', 'maxFailedIndexes', 'podFailurePolicy', 'activeDeadlineSeconds', 'template', 'suspend', ...INERT.jobSpec],
  template: ['metadata', 'spec'],
  podSpec: ['containers', 'restartPolicy', 'volumes', 'securityContext', 'terminationGracePeriodSeconds', ...INERT.podSpec],
  podSecurity: ['runAsUser', 'runAsGroup', 'runAsNonRoot', 'fsGroup', 'fsGroupChangePolicy', 'seccompProfile'],
  container: ['image', 'command', 'args', 'env', 'envFrom', 'workingDir', 'volumeMounts', 'securityContext', 'resources', ...INERT.container],
  containerSecurity: ['runAsUser', 'runAsGroup', 'runAsNonRoot', 'readOnlyRootFilesystem', 'allowPrivilegeEscalation', 'capabilities', 'privileged', 'seccompProfile'],
  capabilities: ['drop', 'add'],
  resources: ['limits', 'requests'],
  env: ['name', 'value', 'valueFrom'],
  valueFrom: ['fieldRef', 'secretKeyRef', 'configMapKeyRef'],
  fieldRef: ['fieldPath', 'apiVersion'],
  keyRef: ['name', 'key', 'optional'],
  envFrom: ['secretRef', 'configMapRef', 'prefix'],
  sourceRef: ['name', 'optional'],
  volume: ['name', 'persistentVolumeClaim', 'configMap', 'emptyDir'],
  claim: ['claimName', 'readOnly'],
  configMap: ['name', 'items', 'defaultMode', 'optional'],
  configMapItem: ['key', 'path', 'mode'],
  emptyDir: ['medium', 'sizeLimit'],
  volumeMount: ['name', 'mountPath', 'readOnly', 'subPath', 'subPathExpr'],
  failurePolicy: ['rules'],
  rule: ['action', 'onExitCodes', 'onPodConditions'],
  onExitCodes: ['containerName', 'operator', 'values'],
  podCondition: ['type', 'status'],
};

/** Throws when `value` has a field outside `known`, naming the field's path. */
function only(value, known, path) {
  if (value === undefined || value === null) return;
  if (typeof value !== 'object' || Array.isArray(value)) throw new Error(`${path}: expected an object`);
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) throw new Error(`${path}.${key}: not supported by this runner (it would change what the Job does, so it is refused rather than ignored)`);
  }
}

const each = (list, path, check) => {
  if (list === undefined) return;
  if (!Array.isArray(list)) throw new Error(`${path}: expected a list`);
  list.forEach((item, index) => check(item, `${path}[${index}]`));
};

/** Refuses a Job the runner cannot run as the Job controller would; returns the Job unchanged. */
export function checkJob(job) {
  const name = job?.metadata?.name ?? '(unnamed)';
  const at = `Job ${name}`;
  only(job, KNOWN.job, at);
  if (job.apiVersion !== 'batch/v1' || job.kind !== 'Job') throw new Error(`${at}: expected apiVersion batch/v1, kind Job`);
  if (typeof job.metadata?.name !== 'string') throw new Error(`${at}: metadata.name is required`);
  only(job.metadata, INERT.metadata, `${at}.metadata`);
  const spec = job.spec;
  only(spec, KNOWN.jobSpec, `${at}.spec`);
  if (spec.suspend === true) throw new Error(`${at}.spec.suspend: a suspended Job never starts; refused`);
  if (spec.completionMode !== undefined && !['Indexed', 'NonIndexed'].includes(spec.completionMode)) throw new Error(`${at}.spec.completionMode: ${spec.completionMode} is not Indexed or NonIndexed`);
  if (spec.backoffLimitPerIndex !== undefined && spec.completionMode !== 'Indexed') throw new Error(`${at}.spec.backoffLimitPerIndex: needs completionMode Indexed`);
  if (spec.podFailurePolicy !== undefined) {
    only(spec.podFailurePolicy, KNOWN.failurePolicy, `${at}.spec.podFailurePolicy`);
    each(spec.podFailurePolicy.rules, `${at}.spec.podFailurePolicy.rules`, (rule, path) => {
      only(rule, KNOWN.rule, path);
      if (!['FailJob', 'FailIndex', 'Ignore', 'Count'].includes(rule.action)) throw new Error(`${path}.action: ${rule.action} is not FailJob, FailIndex, Ignore or Count`);
      if (rule.action === 'FailIndex' && spec.backoffLimitPerIndex === undefined) throw new Error(`${path}.action: FailIndex needs spec.backoffLimitPerIndex`);
      if ((rule.onExitCodes === undefined) === (rule.onPodConditions === undefined)) throw new Error(`${path}: exactly one of onExitCodes and onPodConditions`);
      only(rule.onExitCodes, KNOWN.onExitCodes, `${path}.onExitCodes`);
      if (rule.onExitCodes !== undefined && !['In', 'NotIn'].includes(rule.onExitCodes.operator)) throw new Error(`${path}.onExitCodes.operator: expected In or NotIn`);
      each(rule.onPodConditions, `${path}.onPodConditions`, (condition, where) => only(condition, KNOWN.podCondition, where));
    });
  }
  checkPodTemplate(spec.template, `${at}.spec.template`);
  return job;
}

function checkPodTemplate(template, at) {
  only(template, KNOWN.template, at);
  only(template?.metadata, INERT.metadata, `${at}.metadata`);
  const pod = template?.spec;
  if (pod === undefined) throw new Error(`${at}.spec is required`);
  only(pod, KNOWN.podSpec, `${at}.spec`);
  if (pod.restartPolicy !== 'Never') throw new Error(`${at}.spec.restartPolicy: only Never is supported (a Job's pods are replaced, not restarted in place)`);
  only(pod.securityContext, KNOWN.podSecurity, `${at}.spec.securityContext`);
  each(pod.volumes, `${at}.spec.volumes`, (volume, path) => {
    only(volume, KNOWN.volume, path);
    const sources = ['persistentVolumeClaim', 'configMap', 'emptyDir'].filter((key) => volume[key] !== undefined);
    if (sources.length !== 1) throw new Error(`${path}: exactly one of persistentVolumeClaim, configMap, emptyDir`);
    only(volume.persistentVolumeClaim, KNOWN.claim, `${path}.persistentVolumeClaim`);
    only(volume.configMap, KNOWN.configMap, `${path}.configMap`);
    each(volume.configMap?.items, `${path}.configMap.items`, (item, where) => only(item, KNOWN.configMapItem, where));
    only(volume.emptyDir, KNOWN.emptyDir, `${path}.emptyDir`);
  });
  if (!Array.isArray(pod.containers) || pod.containers.length !== 1) throw new Error(`${at}.spec.containers: exactly one container is supported`);
  const container = pod.containers[0];
  const where = `${at}.spec.containers[0]`;
  only(container, KNOWN.container, where);
  if (typeof container.image !== 'string') throw new Error(`${where}.image is required`);
  only(container.securityContext, KNOWN.containerSecurity, `${where}.securityContext`);
  only(container.securityContext?.capabilities, KNOWN.capabilities, `${where}.securityContext.capabilities`);
  if (container.securityContext?.privileged === true) throw new Error(`${where}.securityContext.privileged: refused`);
  only(container.resources, KNOWN.resources, `${where}.resources`);
  each(container.env, `${where}.env`, (entry, path) => {
    only(entry, KNOWN.env, path);
    only(entry.valueFrom, KNOWN.valueFrom, `${path}.valueFrom`);
    only(entry.valueFrom?.fieldRef, KNOWN.fieldRef, `${path}.valueFrom.fieldRef`);
    only(entry.valueFrom?.secretKeyRef, KNOWN.keyRef, `${path}.valueFrom.secretKeyRef`);
    only(entry.valueFrom?.configMapKeyRef, KNOWN.keyRef, `${path}.valueFrom.configMapKeyRef`);
  });
  each(container.envFrom, `${where}.envFrom`, (entry, path) => {
    only(entry, KNOWN.envFrom, path);
    if ((entry.secretRef === undefined) === (entry.configMapRef === undefined)) throw new Error(`${path}: exactly one of secretRef and configMapRef`);
    only(entry.secretRef, KNOWN.sourceRef, `${path}.secretRef`);
    only(entry.configMapRef, KNOWN.sourceRef, `${path}.configMapRef`);
  });
  each(container.volumeMounts, `${where}.volumeMounts`, (mount, path) => {
    only(mount, KNOWN.volumeMount, path);
    if (mount.subPath !== undefined && mount.subPathExpr !== undefined) throw new Error(`${path}: subPath and subPathExpr are exclusive`);
  });
}
