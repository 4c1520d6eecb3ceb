// Types of cluster.mjs, for the tests that import it.
export interface ExtraMount {
  source: string;
  target: string;
  readOnly?: boolean;
}
export interface ClusterOptions {
  root: string;
  manifests?: { manifest: any }[];
  configMaps?: Record<string, Record<string, string>>;
  secrets?: Record<string, Record<string, string>>;
  claims?: Record<string, string>;
  network?: string;
  images?: Record<string, string>;
  extraMounts?: ExtraMount[];
}
export interface Cluster {
  root: string;
  network: string;
  extraMounts: ExtraMount[];
  imageFor(image: string): string;
  hasClaim(name: string): boolean;
  claimFolder(name: string, owner?: { uid?: number; gid?: number }): string;
  configMapFolder(source: any, folder: string): string;
  hasConfigMap(name: string): boolean;
  dataOf(kind: 'Secret' | 'ConfigMap', name: string): Record<string, string> | undefined;
  podFolder(name: string): string;
}
export declare function createCluster(options: ClusterOptions): Cluster;
