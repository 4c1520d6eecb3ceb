// Kept equal to package.json's version by a test; a constant keeps `--version` free of file reads. This file imports
// nothing: the CLI's entry reads it to answer `--version` before anything else loads (the SDK's documents, zod).
export const HOST_VERSION = '0.1.0';

/**
 * The version of the reference implementation's format (opensourceops/agentctl) this release implements: a declarative
 * pack's `agentctl` range is checked against it, never against HOST_VERSION. `agentctl version` shows it.
 */
export const REFERENCE_FORMAT_VERSION = '0.3.0';
