// Types of dev-image.mjs, for the tests that import it.
import type { ExtraMount } from './cluster.mjs';
export declare const DEV_IMAGE: string;
export declare const DEV_MOUNT_TARGET: string;
export declare function devImage(nodeImage: string, checkout: string): { image: string; mount: ExtraMount };
