// Kept equal to package.json's version by a test; a constant keeps `--version` free of file reads.
export const HOST_VERSION = '0.1.0';
export const CLI_API_VERSION = 'agentctl.dev/cli/v1';
