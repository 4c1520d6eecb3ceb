// Types of manifest.mjs, for the tests that import it.
export declare function readManifests(files: string[]): { source: string; manifest: any }[];
export declare function checkJob<T>(job: T): T;
