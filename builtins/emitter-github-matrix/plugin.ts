// A sharded plan as a GitHub Actions workflow: `plan FILE --emit github-matrix --shards N --out DIR` writes
// DIR/.github/workflows/NAME.yml, a prepare job, a matrix job of N shards and a gather job.
import { definePlugin, dnsLabel, generatedNotice, requireShardedPlan, type PlanEmitter } from '@agentctl/sdk';
import { stringify } from 'yaml';
import { githubOptions, type GithubOptions } from './options.js';
import { githubWorkflow } from './workflow.js';

const FORMAT = 'github-matrix';
const CODES = {
  noShards: 'BUILTIN_EMITTER_GITHUB_MATRIX_E_NO_SHARDS',
  notShardable: 'BUILTIN_EMITTER_GITHUB_MATRIX_E_NOT_SHARDABLE',
} as const;

/** The workflow file as plan was given it, when it is a clean relative path (the repository root is the checkout). */
function defaultWorkflowPath(file: string | undefined): string {
  if (file === undefined || file === '-') return 'workflow.yaml';
  const path = file.replaceAll('\\', '/').replace(/^(\.\/)+/, '');
  const clean = !path.startsWith('/') && !path.split('/').some((part) => part === '..' || part === '.' || part === '');
  return clean ? path : path.split('/').pop()!;
}

/** The emitter; the npx runner's default package is the running agentctl's version. */
const githubEmitter = (version: string): PlanEmitter<GithubOptions> => ({
  format: FORMAT,
  description: 'a GitHub Actions workflow of a sharded plan (needs --shards N): prepare, a matrix of the shards, gather',
  optionsSchema: githubOptions,
  emit({ plan: document, file, options }) {
    const plan = requireShardedPlan(document, FORMAT, CODES);
    const name = options.name ?? dnsLabel(plan.workflowName, 100);
    const workflow = githubWorkflow(plan, { name, workflowPath: options.workflowPath ?? defaultWorkflowPath(file), package: options.package ?? `@agentctl/cli@${version}`, options });
    const notice = generatedNotice(FORMAT, plan).map((line) => `# ${line}\n`).join('');
    return [{ path: `.github/workflows/${name}.yml`, content: `${notice}${stringify(workflow, { lineWidth: 0, aliasDuplicateObjects: false })}` }];
  },
});

export default definePlugin({
  name: 'builtin.emitter.github-matrix',
  version: '0.1.0',
  hostRange: '^0.1.0',
  description: 'Emits a sharded plan as a GitHub Actions workflow: prepare, a matrix job of the shards, gather.',
  errorCodes: {
    [CODES.noShards]: { exitCode: 2, description: 'The plan has no stages or no shard count: emit with --shards N.' },
    [CODES.notShardable]: { exitCode: 2, description: 'The workflow has no fan-out that can be split into shards; the message names the reason.' },
  },
  setup(api) {
    api.registerPlanEmitter(githubEmitter(api.hostVersion));
  },
});
