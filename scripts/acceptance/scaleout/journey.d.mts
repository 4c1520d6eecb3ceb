// Types of journey.mjs, for the tests that import it.
import type { ExtraMount } from './cluster.mjs';
import type { JobResult } from './job-runner.mjs';
export interface JourneyOptions {
  checkout: string;
  workflow: string;
  root: string;
  image: string;
  shards: number;
  kill?: number;
  extraMounts?: ExtraMount[];
  images?: Record<string, string>;
  log?: (line: string) => void;
}
export interface JourneyResult {
  gathered: any;
  reference: any;
  prepare: JobResult;
  shards: JobResult & { killedAfterEffects: number | null; again?: JobResult };
  gather: JobResult;
  logged: string[];
  counts: Record<string, { operation: string; count: number; runs: string[] }>;
  inspection: any;
}
export declare function scaleOutJourney(options: JourneyOptions): Promise<JourneyResult>;
export declare function hostCli(root: string, args: string[]): any;
export declare function emittedJobs(folder: string): { prepare: any; shards: any; gather: any };
export declare function commandJob(template: any, name: string, args: string[]): any;
