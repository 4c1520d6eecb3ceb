// Kept equal to package.json's version by a test (`--version` itself is answered from package.json by the entry shim,
// bin/agentctl.js, before any ES module loads). This file imports nothing, so whatever reads the constant loads nothing more.
export const HOST_VERSION = '0.1.0';

/**
 * The version of the reference implementation's format (opensourceops/agentctl) this release implements: a declarative
 * pack's `agentctl` range is checked against it, never against HOST_VERSION. `agentctl version` shows it.
 */
export const REFERENCE_FORMAT_VERSION = '0.3.0';
