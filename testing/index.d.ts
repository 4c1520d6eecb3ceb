export * from '@agentctl/cli/testing';
