// What the pods of the Podman Job runner share, as a cluster's storage would hold it: one host folder per
// PersistentVolumeClaim (so every pod of every Job that names the claim sees the same files, like a ReadWriteMany
// volume), the ConfigMaps' data, the network pods join and the image references as the engine knows them.
import { chmodSync, chownSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

/**
 * @param {{
 *   root: string,                                    the folder the claims' and pods' folders are made in
 *   manifests?: { manifest: any }[],                 ConfigMaps and PersistentVolumeClaims among them are known
 *   configMaps?: Record<string, Record<string, string>>, more ConfigMaps: name → key → text
 *   secrets?: Record<string, Record<string, string>>,  Secrets: name → key → value (their values reach pods as env only)
 *   claims?: Record<string, string>,                 claims backed by an existing host folder: name → folder
 *   network?: string,                                the pods' network (`none` by default: nothing here needs one)
 *   images?: Record<string, string>,                 an image reference as written → the reference the engine holds
 *   extraMounts?: { source: string, target: string, readOnly?: boolean }[],  host folders every pod also mounts
 * }} options
 */
export function createCluster({ root, manifests = [], configMaps = {}, secrets = {}, claims = {}, network = 'none', images = {}, extraMounts = [] }) {
  const maps = new Map(Object.entries(configMaps));
  const secretData = new Map(Object.entries(secrets));
  const declaredClaims = new Set(Object.keys(claims));
  for (const { manifest } of manifests) {
    if (manifest?.kind === 'ConfigMap') maps.set(manifest.metadata.name, { ...(manifest.data ?? {}) });
    if (manifest?.kind === 'PersistentVolumeClaim') declaredClaims.add(manifest.metadata.name);
    if (manifest?.kind === 'Secret') {
      const decoded = Object.fromEntries(Object.entries(manifest.data ?? {}).map(([key, value]) => [key, Buffer.from(String(value), 'base64').toString('utf8')]));
      secretData.set(manifest.metadata.name, { ...decoded, ...(manifest.stringData ?? {}) });
    }
  }
  const claimFolders = new Map(Object.entries(claims));
  mkdirSync(root, { recursive: true });
  return {
    root,
    network,
    extraMounts,
    /** The image reference the engine runs for one a manifest names. */
    imageFor: (image) => images[image] ?? image,
    /** Whether a claim exists (declared among the manifests or given). */
    hasClaim: (name) => declaredClaims.has(name),
    /**
     * The host folder of a claim, made on first use and given to the first pod's user, as a volume provisioned for
     * that user would be (a real cluster needs `fsGroup` or a storage class that does the same).
     */
    claimFolder(name, owner = {}) {
      if (!declaredClaims.has(name)) throw new Error(`persistentVolumeClaim ${name}: no such claim among the manifests (a pod naming it would stay Pending)`);
      if (!claimFolders.has(name)) {
        const folder = join(root, 'claims', name);
        mkdirSync(folder, { recursive: true });
        chmodSync(folder, 0o770);
        if (owner.uid !== undefined) chownSync(folder, owner.uid, owner.gid ?? owner.uid);
        claimFolders.set(name, folder);
      }
      return claimFolders.get(name);
    },
    /** A fresh folder holding a ConfigMap volume's files (every key, or the listed `items`), readable by any user. */
    configMapFolder(source, folder) {
      const data = maps.get(source.name) ?? (source.optional === true ? {} : undefined);
      if (data === undefined) throw new Error(`configMap ${source.name}: no such ConfigMap (give it among the manifests or in configMaps)`);
      mkdirSync(folder, { recursive: true });
      chmodSync(folder, 0o755);
      const entries = source.items ?? Object.keys(data).map((key) => ({ key, path: key }));
      for (const item of entries) {
        if (!Object.hasOwn(data, item.key)) throw new Error(`configMap ${source.name}: no key ${item.key}`);
        const path = normalize(item.path);
        if (path.startsWith('..') || path.startsWith('/')) throw new Error(`configMap ${source.name}: item path ${item.path} leaves the volume`);
        const file = join(folder, path);
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, data[item.key]);
        chmodSync(file, item.mode ?? source.defaultMode ?? 0o644);
      }
      return folder;
    },
    /** The data of a Secret or a ConfigMap by name (undefined when there is none). */
    dataOf: (kind, name) => (kind === 'Secret' ? secretData.get(name) : maps.get(name)),
    /** Whether a ConfigMap is known. */
    hasConfigMap: (name) => maps.has(name),
    /** A pod's own scratch folder (its emptyDir volumes and ConfigMap copies). */
    podFolder(name) {
      const folder = join(root, 'pods', name);
      if (!existsSync(folder)) mkdirSync(folder, { recursive: true });
      chmodSync(folder, 0o755);
      return folder;
    },
  };
}
