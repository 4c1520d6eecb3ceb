// The options of the github-matrix emitter (`--emit-option KEY=VALUE`); the plan-dependent defaults (the name, the
// workflow path) are filled in by the emitter.
import { z } from '@agentctl/sdk';

const relativeFile = (path: string) => !path.startsWith('/') && !path.endsWith('/') && !path.split('/').some((part) => part === '..' || part === '.' || part === '');

export const githubOptions = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, 'must be letters, digits, ".", "_" and "-"').optional().describe('the workflow\'s file name (.github/workflows/NAME.yml) and its name; default the agentctl workflow\'s name in lower case'),
  runner: z.enum(['image', 'npx']).default('image').describe('run agentctl in its image with docker (image, the default) or from npm with npx'),
  image: z.string().min(1).default('${{ vars.AGENTCTL_IMAGE }}').describe('runner image: the image reference; default the repository variable AGENTCTL_IMAGE'),
  package: z.string().min(1).optional().describe('runner npx: the npm package spec; default @agentctl/cli at the running agentctl\'s version'),
  nodeVersion: z.string().regex(/^[0-9][0-9.x]*$/, 'must be a Node version such as 24').default('24').describe('runner npx: the Node version actions/setup-node installs; default 24'),
  workflowPath: z.string().refine(relativeFile, 'must be a file path relative to the repository root, without . or .. segments').optional().describe('the workflow file relative to the repository root; default the file plan was given when it is such a path, else its file name'),
  secrets: z.array(z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'must be an environment variable name in upper case')).default([]).describe('names of repository secrets the stages get as environment variables of the same name (JSON list); default none'),
  timeoutMinutes: z.number().int().min(1).max(4320).default(30).describe('timeout-minutes of each job; default 30'),
  maxParallel: z.number().int().min(1).max(256).optional().describe('strategy.max-parallel of the shard job; default GitHub\'s (all at once, within the account\'s limit)'),
  retentionDays: z.number().int().min(1).max(90).default(7).describe('retention-days of the ledger artifacts; default 7'),
});

export type GithubOptions = z.output<typeof githubOptions>;
