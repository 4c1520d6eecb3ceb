// Types of job-runner.mjs, for the tests that import it.
import type { Cluster } from './cluster.mjs';
export interface Pod {
  job: string;
  index: number | null;
  attempt: number;
  name: string;
  container: string;
  exitCode: number | null;
  durationMs: number | null;
  /** Epoch milliseconds when `podman run` started and when it ended. */
  startedAt?: number;
  endedAt?: number;
  disrupted: boolean;
  outcome: 'succeeded' | 'failed' | 'ignored' | 'stopped' | 'not started' | null;
  rule?: string | null;
  mounts?: { target: string; source: string }[];
  /** The engine's command line (the environment's values are not on it). */
  command?: string[];
  stdout: string;
  stderr: string;
}
export interface JobResult {
  name: string;
  status: 'Complete' | 'Failed';
  reason: string | null;
  message?: string;
  durationMs: number;
  pods: Pod[];
  succeededIndexes: number[];
  failedIndexes: number[];
}
export interface JobOptions {
  engine?: string;
  indexes?: number[];
  onPod?: (event: { type: 'started' | 'finished'; pod: Pod }) => void;
  timeoutMs?: number;
}
export interface JobExecution {
  name: string;
  done: Promise<JobResult>;
  kill(index: number): boolean;
  running(): Pod[];
}
export declare function startJob(manifest: any, cluster: Cluster, options?: JobOptions): JobExecution;
export declare function runJob(manifest: any, cluster: Cluster, options?: JobOptions): Promise<JobResult>;
export declare function podLines(result: JobResult): string[];
export declare function matchingRule(rules: any[], pod: { exitCode: number | null; disrupted: boolean }): any;
