// The Kubernetes recipes: a PVC set, a run Job and a CronJob, and the operator's approvals, approve and resume Jobs,
// all sharing one pod template. The template is the image's run contract (scripts/image/contract.mjs) translated
// flag by flag into Kubernetes fields; a flag this file cannot translate stops the rendering, so the manifests never
// silently fall behind the contract.
import { stringify } from 'yaml';
import { MOUNTS, RUN_FLAGS } from '../image/contract.mjs';
import { CREDENTIALS, STEPS } from './commands.mjs';

const FOLDER = 'docs/ci/kubernetes';
const CONTAINER = 'agentctl';
/** The Secret the credentials come from, by reference: a key per variable (OPENAI_API_KEY → openai-api-key). */
const CREDENTIALS_SECRET = 'agentctl-credentials';
/** Where each mount of the contract comes from in a cluster. */
const VOLUME_SOURCES = {
  config: { configMap: { name: 'agentctl-config' } },
  workspace: { persistentVolumeClaim: { claimName: 'agentctl-workspace', readOnly: true } },
  state: { persistentVolumeClaim: { claimName: 'agentctl-state' } },
  artifacts: { persistentVolumeClaim: { claimName: 'agentctl-artifacts' } },
};
/** What the operator fills in before creating an operator Job (see docs/ci/README.md#kubernetes). */
const PLACEHOLDERS = {
  AGENTCTL_RUN_ID: 'REPLACE_WITH_RUN_ID',
  AGENTCTL_APPROVAL_ID: 'REPLACE_WITH_APPROVAL_ID',
  AGENTCTL_APPROVAL_REASON: 'REPLACE_WITH_REASON',
  AGENTCTL_APPROVAL_ACTOR: 'REPLACE_WITH_OPERATOR',
};

/** docker's tmpfs size (`16m`: binary units) as a Kubernetes quantity (`16Mi`). */
function quantity(size) {
  const match = /^(\d+)([kmg]?)$/.exec(size);
  if (!match) throw new Error(`ci-recipes: tmpfs size ${size} has no Kubernetes form`);
  return `${match[1]}${{ '': '', k: 'Ki', m: 'Mi', g: 'Gi' }[match[2]]}`;
}

/** The security context and the /tmp volume that give a pod what RUN_FLAGS give a container. */
export function translateRunFlags(flags = RUN_FLAGS) {
  const container = {};
  const pod = {};
  let tmp;
  for (let index = 0; index < flags.length; index += 1) {
    const flag = flags[index];
    const value = flags[index + 1];
    if (flag === '--rm') continue; // A Job keeps its pod for the logs; ttlSecondsAfterFinished removes it.
    else if (flag === '--read-only') container.readOnlyRootFilesystem = true;
    else if (flag === '--user') {
      const [user, group] = value.split(':').map(Number);
      Object.assign(pod, { runAsNonRoot: true, runAsUser: user, runAsGroup: group, fsGroup: group });
      Object.assign(container, { runAsNonRoot: true, runAsUser: user, runAsGroup: group });
      index += 1;
    } else if (flag === '--tmpfs') {
      const [target, options] = value.split(':');
      const size = options.split(',').find((option) => option.startsWith('size='));
      tmp = { target, volume: { medium: 'Memory', ...(size ? { sizeLimit: quantity(size.slice(5)) } : {}) } };
      index += 1;
    } else if (flag === '--cap-drop') {
      container.capabilities = { drop: [value] };
      index += 1;
    } else if (flag === '--security-opt' && value === 'no-new-privileges') {
      container.allowPrivilegeEscalation = false;
      index += 1;
    } else throw new Error(`ci-recipes: the run flag ${flag} has no Kubernetes form in scripts/ci-recipes/kubernetes.mjs`);
  }
  pod.seccompProfile = { type: 'RuntimeDefault' };
  return { pod, container, tmp };
}

const secretKey = (variable) => variable.toLowerCase().replaceAll('_', '-');

function podTemplate({ image, step }) {
  const { pod, container, tmp } = translateRunFlags();
  const referenced = new Set();
  const args = STEPS[step]((name) => {
    referenced.add(name);
    return `$(${name})`;
  });
  const credentials = step === 'run' || step === 'resume' ? CREDENTIALS : [];
  const env = [
    ...[...referenced].map((name) => ({ name, value: PLACEHOLDERS[name] })),
    ...credentials.map((name) => ({ name, valueFrom: { secretKeyRef: { name: CREDENTIALS_SECRET, key: secretKey(name) } } })),
  ];
  const volumeMounts = MOUNTS.map((mount) => ({ name: mount.name, mountPath: mount.target, ...(mount.readOnly ? { readOnly: true } : {}) }));
  const volumes = MOUNTS.map((mount) => {
    if (!(mount.name in VOLUME_SOURCES)) throw new Error(`ci-recipes: no Kubernetes volume for the mount ${mount.target}`);
    return { name: mount.name, ...VOLUME_SOURCES[mount.name] };
  });
  if (tmp) {
    volumeMounts.push({ name: 'tmp', mountPath: tmp.target });
    volumes.push({ name: 'tmp', emptyDir: tmp.volume });
  }
  return {
    metadata: { labels: { 'app.kubernetes.io/name': 'agentctl', 'app.kubernetes.io/component': step } },
    spec: {
      restartPolicy: 'Never',
      automountServiceAccountToken: false,
      // SIGTERM cancels the run (exit 130, run recorded cancelled); this leaves it time to record that.
      terminationGracePeriodSeconds: 30,
      securityContext: pod,
      containers: [
        {
          name: CONTAINER,
          image,
          args,
          ...(env.length > 0 ? { env } : {}),
          securityContext: container,
          resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '512Mi' } },
          volumeMounts,
        },
      ],
      volumes,
    },
  };
}

/** A Job's spec: one attempt (a new pod would start a new run, not resume this one), exit 3 named in its condition. */
function jobSpec(options) {
  return {
    backoffLimit: 0,
    activeDeadlineSeconds: 900,
    ttlSecondsAfterFinished: 86400,
    podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { containerName: CONTAINER, operator: 'In', values: [3] } }] },
    template: podTemplate(options),
  };
}

const job = (name, options) => ({ apiVersion: 'batch/v1', kind: 'Job', metadata: { generateName: `${name}-` }, spec: jobSpec(options) });

const pvc = (name, size) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } } },
});

const HEADER = '# Rendered by `node scripts/ci-recipes.mjs --write` from the image\'s run contract: see docs/ci/README.md.\n';
const file = (comment, documents) =>
  `${comment.map((line) => `# ${line}\n`).join('')}${HEADER}${documents.map((document) => stringify(document, { lineWidth: 0 })).join('---\n')}`;

/** Every Kubernetes recipe: path → text. */
export function kubernetesManifests({ version }) {
  const image = `registry.example.com/agentctl:${version}`;
  return new Map([
    [`${FOLDER}/pvc.yaml`, file(['The volumes every agentctl pod mounts: /state (database and artifact store, kept between Jobs),', '/artifacts (declared outputs) and /workspace (read-only input). SQLite needs a filesystem with', 'working locks: a block-backed volume, not NFS.'], [
      pvc('agentctl-state', '1Gi'),
      pvc('agentctl-artifacts', '1Gi'),
      pvc('agentctl-workspace', '1Gi'),
    ])],
    [`${FOLDER}/job.yaml`, file(['One run of /config/workflow.yaml. Exit 3 fails the Job at once and leaves the paused run in /state:', 'read its approvals with approvals-job.yaml, decide with approve-job.yaml, continue with resume-job.yaml.'], [
      job('agentctl-run', { image, step: 'run' }),
    ])],
    [`${FOLDER}/cronjob.yaml`, file(['The same run on a schedule. Forbid keeps two runs from overlapping, but Kubernetes may still start', 'a scheduled Job twice: the workflow\'s effects must tolerate that (idempotent writes, keys).'], [
      {
        apiVersion: 'batch/v1',
        kind: 'CronJob',
        metadata: { name: 'agentctl-run' },
        spec: {
          schedule: '17 6 * * 1-5',
          timeZone: 'Etc/UTC',
          concurrencyPolicy: 'Forbid',
          startingDeadlineSeconds: 300,
          successfulJobsHistoryLimit: 3,
          failedJobsHistoryLimit: 3,
          jobTemplate: { spec: jobSpec({ image, step: 'run' }) },
        },
      },
    ])],
    [`${FOLDER}/approvals-job.yaml`, file(['The operator\'s first step: prints the pending approvals of a paused run (kubectl logs).', 'Replace REPLACE_WITH_RUN_ID, then kubectl create -f.'], [
      job('agentctl-approvals', { image, step: 'list' }),
    ])],
    [`${FOLDER}/approve-job.yaml`, file(['The operator\'s decision: approves one pending approval, recorded with its actor and reason.', 'Replace the REPLACE_WITH_ values, then kubectl create -f.'], [
      job('agentctl-approve', { image, step: 'approve' }),
    ])],
    [`${FOLDER}/resume-job.yaml`, file(['Continues the paused run against the same /state: the approved effect is dispatched once.', 'Replace REPLACE_WITH_RUN_ID, then kubectl create -f.'], [
      job('agentctl-resume', { image, step: 'resume' }),
    ])],
  ]);
}
