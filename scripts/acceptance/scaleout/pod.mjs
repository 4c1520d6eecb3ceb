// One pod of a Job as one `podman run`: Kubernetes' `$(VAR)` expansion, the downward API, security context, resource
// limits and volumes mapped onto Podman's flags. The volumes' host folders come from the cluster (cluster.mjs).
import { chmodSync, chownSync, mkdirSync } from 'node:fs';
import { isAbsolute, join, normalize } from 'node:path';

/** The annotation (and label) the Job controller puts on each pod of an Indexed Job. */
export const COMPLETION_INDEX_KEY = 'batch.kubernetes.io/job-completion-index';

/**
 * Kubernetes' variable expansion: `$(NAME)` becomes the value of NAME when it is defined and stays as written when it
 * is not; `$$` is one `$` (so `$$(NAME)` is the literal `$(NAME)`); any other `$` is kept.
 */
export function expand(text, variables) {
  let out = '';
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i];
    if (char !== '$' || i + 1 >= text.length) {
      out += char;
      continue;
    }
    const next = text[i + 1];
    if (next === '$') {
      out += '$';
      i += 1;
    } else if (next === '(') {
      const close = text.indexOf(')', i + 2);
      if (close < 0) {
        out += text.slice(i);
        break;
      }
      const name = text.slice(i + 2, close);
      out += Object.hasOwn(variables, name) ? variables[name] : `$(${name})`;
      i = close;
    } else {
      out += char;
    }
  }
  return out;
}

/** A field of the pod's metadata as the downward API names it: `metadata.name`, `metadata.annotations['KEY']`. */
function fieldValue(fieldPath, pod) {
  if (fieldPath === 'metadata.name') return pod.name;
  if (fieldPath === 'metadata.namespace') return pod.namespace;
  const keyed = /^metadata\.(annotations|labels)\['([^']+)'\]$/.exec(fieldPath);
  if (keyed !== null) return pod[keyed[1]][keyed[2]] ?? '';
  throw new Error(`env fieldRef ${fieldPath}: not supported by this runner (only metadata.name, metadata.namespace, metadata.annotations['KEY'], metadata.labels['KEY'])`);
}

/** One key of a Secret or ConfigMap (`keyRef`), or undefined when an optional one is missing. */
function keyValue(kind, keyRef, cluster) {
  const data = cluster.dataOf(kind, keyRef.name);
  if (data !== undefined && Object.hasOwn(data, keyRef.key)) return String(data[keyRef.key]);
  if (keyRef.optional === true) return undefined;
  throw new Error(`${kind} ${keyRef.name}: no key ${keyRef.key} (a pod naming it would not start)`);
}

/**
 * The container's environment: `envFrom` sources first, then `env` in declaration order, each value expanded against
 * the ones before it.
 */
export function containerEnv(container, pod, cluster) {
  const env = {};
  for (const source of container.envFrom ?? []) {
    const [kind, ref] = source.secretRef !== undefined ? ['Secret', source.secretRef] : ['ConfigMap', source.configMapRef];
    const data = cluster.dataOf(kind, ref.name);
    if (data === undefined && ref.optional !== true) throw new Error(`envFrom: no ${kind} ${ref.name} (a pod naming it would not start)`);
    for (const [key, value] of Object.entries(data ?? {})) env[`${source.prefix ?? ''}${key}`] = String(value);
  }
  for (const entry of container.env ?? []) {
    if (typeof entry.name !== 'string' || entry.name === '') throw new Error('env: an entry without a name');
    if (entry.valueFrom?.fieldRef !== undefined) {
      env[entry.name] = String(fieldValue(entry.valueFrom.fieldRef.fieldPath, pod));
    } else if (entry.valueFrom !== undefined) {
      const [kind, ref] = entry.valueFrom.secretKeyRef !== undefined ? ['Secret', entry.valueFrom.secretKeyRef] : ['ConfigMap', entry.valueFrom.configMapKeyRef];
      const value = keyValue(kind, ref, cluster);
      if (value !== undefined) env[entry.name] = value;
    } else {
      env[entry.name] = expand(String(entry.value ?? ''), env);
    }
  }
  // The Job controller gives every container of an Indexed Job its index, declared or not.
  if (pod.index !== null && !Object.hasOwn(env, 'JOB_COMPLETION_INDEX')) env.JOB_COMPLETION_INDEX = String(pod.index);
  return env;
}

const MEMORY_UNITS = { '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4 };

/** `512Mi` → bytes; `500m` or `2` → CPUs. */
function quantity(text, kind) {
  const match = /^([0-9.]+)([A-Za-z]*)$/.exec(String(text));
  if (match === null) throw new Error(`resources: ${kind} ${text} is not a quantity`);
  const [, number, unit] = match;
  if (kind === 'cpu') {
    if (unit !== '' && unit !== 'm') throw new Error(`resources: cpu ${text}: unknown unit`);
    return Number(number) / (unit === 'm' ? 1000 : 1);
  }
  if (!Object.hasOwn(MEMORY_UNITS, unit)) throw new Error(`resources: memory ${text}: unknown unit`);
  return Math.round(Number(number) * MEMORY_UNITS[unit]);
}

/** A relative path below a volume (`subPath`), refusing absolute paths and `..`. */
function below(root, subPath) {
  if (subPath === '' || subPath === undefined) return root;
  const clean = normalize(subPath);
  if (isAbsolute(clean) || clean === '..' || clean.startsWith('../')) throw new Error(`volumeMounts: subPath ${subPath} leaves its volume`);
  return join(root, clean);
}

/** The user the pod's container runs as, pod-level settings overridden by the container's. */
export function podUser(podSpec, container) {
  const security = { ...(podSpec.securityContext ?? {}), ...(container.securityContext ?? {}) };
  return { uid: security.runAsUser, gid: security.runAsGroup, fsGroup: podSpec.securityContext?.fsGroup, security };
}

/**
 * The `podman run` arguments of one pod, its bind mounts (`{target, source}`: where a volume's files are on the host)
 * and the container's environment, which podman must be given as its own (`--env NAME` takes the value from there).
 * @param {{ spec: any, pod: any, name: string, cluster: any, podFolder: string, imageUser: (image: string) => string }} input
 */
export function podmanArguments({ spec, pod, name, cluster, podFolder, imageUser }) {
  const container = spec.containers[0];
  const { uid, gid, fsGroup, security } = podUser(spec, container);
  const env = containerEnv(container, pod, cluster);
  const args = ['run', '--rm', '--name', name, '--hostname', pod.hostname ?? pod.name, '--pull=never', '--network', cluster.network, '--label', `agentctl.scaleout.pod=${pod.name}`];
  if (uid !== undefined) args.push('--user', gid === undefined ? String(uid) : `${uid}:${gid}`);
  if (security.runAsNonRoot === true) {
    const user = uid !== undefined ? String(uid) : imageUser(container.image);
    if (user === '' || user === '0' || user.startsWith('0:') || user.startsWith('root')) throw new Error(`runAsNonRoot: the container would run as root (user "${user || 'unset'}")`);
  }
  if (fsGroup !== undefined) args.push('--group-add', String(fsGroup));
  // A read-only root has nothing writable but its volumes, as in a cluster: Podman's own /tmp and /run tmpfs is off.
  if (security.readOnlyRootFilesystem === true) args.push('--read-only', '--read-only-tmpfs=false');
  if (security.allowPrivilegeEscalation === false) args.push('--security-opt', 'no-new-privileges');
  for (const capability of security.capabilities?.drop ?? []) args.push('--cap-drop', capability);
  for (const capability of security.capabilities?.add ?? []) args.push('--cap-add', capability);
  const seccomp = security.seccompProfile?.type;
  if (seccomp === 'Unconfined') args.push('--security-opt', 'seccomp=unconfined');
  else if (seccomp !== undefined && seccomp !== 'RuntimeDefault') throw new Error(`seccompProfile ${seccomp}: only RuntimeDefault and Unconfined are supported`);
  for (const [key, value] of Object.entries(container.resources?.limits ?? {})) {
    if (key === 'memory') args.push('--memory', String(quantity(value, 'memory')));
    else if (key === 'cpu') args.push('--cpus', String(quantity(value, 'cpu')));
    else throw new Error(`resources.limits.${key}: not supported by this runner`);
  }
  if (container.workingDir !== undefined) args.push('--workdir', container.workingDir);
  // Values reach podman through its own environment (`--env NAME`), never its command line, where a Secret's would show.
  for (const key of Object.keys(env)) args.push('--env', key);
  const mounts = [];
  args.push(...mountArguments({ spec, container, env, cluster, podFolder, owner: { uid, gid: fsGroup ?? gid }, mounts }));
  for (const mount of cluster.extraMounts) args.push('--mount', `type=bind,src=${mount.source},dst=${mount.target}${mount.readOnly ? ',readonly' : ''}`);
  const image = cluster.imageFor(container.image);
  if (container.command !== undefined) {
    args.push('--entrypoint', JSON.stringify(container.command.map((part) => expand(String(part), env))));
  }
  args.push(image, ...(container.args ?? []).map((part) => expand(String(part), env)));
  return { args, mounts, environment: env };
}

/** `--mount` and `--tmpfs` arguments for the container's volumeMounts. */
function mountArguments({ spec, container, env, cluster, podFolder, owner, mounts }) {
  const volumes = new Map((spec.volumes ?? []).map((volume) => [volume.name, volume]));
  const folders = new Map();
  const args = [];
  for (const mount of container.volumeMounts ?? []) {
    const volume = volumes.get(mount.name);
    if (volume === undefined) throw new Error(`volumeMounts: no volume named ${mount.name}`);
    if (mount.mountPath.includes(',')) throw new Error(`volumeMounts: ${mount.mountPath}: a comma in a mount path is not supported`);
    const subPath = mount.subPathExpr !== undefined ? expand(mount.subPathExpr, env) : mount.subPath;
    if (volume.emptyDir?.medium === 'Memory') {
      if (subPath) throw new Error(`volumeMounts ${mount.name}: subPath of a memory emptyDir is not supported`);
      const size = volume.emptyDir.sizeLimit === undefined ? '' : `,size=${quantity(volume.emptyDir.sizeLimit, 'memory')}`;
      args.push('--tmpfs', `${mount.mountPath}:rw,mode=1777${size}`);
      continue;
    }
    if (!folders.has(mount.name)) folders.set(mount.name, volumeFolder(volume, cluster, podFolder, owner));
    const { folder, readOnly } = folders.get(mount.name);
    const source = below(folder, subPath);
    if (source !== folder) {
      mkdirSync(source, { recursive: true });
      if (owner.uid !== undefined) chownSync(source, owner.uid, owner.gid ?? owner.uid);
    }
    const ro = readOnly || mount.readOnly === true;
    mounts.push({ target: mount.mountPath, source });
    args.push('--mount', `type=bind,src=${source},dst=${mount.mountPath}${ro ? ',readonly' : ''}`);
  }
  return args;
}

/** The host folder behind one volume, and whether it is read-only whatever the mount says. */
function volumeFolder(volume, cluster, podFolder, owner) {
  if (volume.persistentVolumeClaim !== undefined) {
    return { folder: cluster.claimFolder(volume.persistentVolumeClaim.claimName, owner), readOnly: volume.persistentVolumeClaim.readOnly === true };
  }
  if (volume.configMap !== undefined) {
    return { folder: cluster.configMapFolder(volume.configMap, join(podFolder, `configmap-${volume.name}`)), readOnly: true };
  }
  const folder = join(podFolder, `emptydir-${volume.name}`);
  mkdirSync(folder, { recursive: true });
  chmodSync(folder, 0o1777);
  if (owner.gid !== undefined) chownSync(folder, 0, owner.gid);
  return { folder, readOnly: false };
}
