// The test kit runs a pack's code in a real agentctl host, so it is the host's own: the CLI package carries it, and this
// package names it for pack authors (a devDependency beside `@agentctl/sdk`), at the CLI version it was published with.
export * from '@agentctl/cli/testing';
