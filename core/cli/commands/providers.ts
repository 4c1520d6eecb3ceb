// `agentctl providers inspect FILE`: each provider entry of a workflow, what its kind can do, and whether its
// credential is available here (checked as `auth check` does: nothing read or run). `providers smoke-openai` is the
// reference's live check; agentctl has none and refuses it (see docs/cli.md#providers).
import { dirname, resolve } from 'node:path';
import type { CommandModule } from 'yargs';
import { AgentctlError } from '@agentctl/sdk';
import { compileText } from '../../compiler/compile.js';
import { readBoundedFile } from '../../compiler/source.js';
import { capabilityNames } from '../../plan-document.js';
import type { Compose } from '../composition.js';
import { handler, type GlobalArgs, packOptions } from '../handler.js';
import { collectInputs, collectVars, type InputArgs } from '../inputs.js';
import { emit, neutralize } from '../output.js';
import { checkSecrets, credentialStatus, NOT_REQUIRED } from './auth.js';
import { workflowHereOptions } from './document.js';
import { isDirectory } from '../drive.js';

interface InspectArgs extends GlobalArgs, InputArgs {
  file: string;
  workspace?: string;
}

const inspect = (compose: Compose): CommandModule<GlobalArgs, InspectArgs> => ({
  command: 'inspect <file>',
  describe: "List a workflow's providers, their kinds' capabilities and whether each credential is present, without reading it",
  builder: (yargs) => workflowHereOptions(yargs) as never,
  handler: handler<InspectArgs>(async (argv, output) => {
    const host = compose();
    const { plan } = await compileText(host, argv.file, readBoundedFile(argv.file, 'workflow file'), { inputs: collectInputs(argv), packs: packOptions(argv), vars: collectVars(argv) });
    const workspace = resolve(argv.workspace ?? dirname(resolve(argv.file)));
    if (!isDirectory(workspace)) throw new AgentctlError('AGENTCTL_E_USAGE', `--workspace ${workspace} is not an existing folder`);
    const providers = Object.values(plan.providers ?? {}).sort((a, b) => (a.name < b.name ? -1 : 1));
    const uses = providers.flatMap((provider) => (provider.credential ? [{ reference: provider.credential, where: provider.name }] : []));
    const checks = await checkSecrets(host, plan, uses, resolve(workspace, plan.policy.workspaceRoot));
    const data = providers.map((provider) => {
      const declared = host.provider(provider.kind)?.capabilities ?? { tools: false, structuredOutput: false, reasoning: false, streaming: false };
      const check = checks.find((item) => item.where === provider.name);
      return {
        name: provider.name,
        kind: provider.kind,
        capabilities: capabilityNames(declared),
        credential: check ? credentialStatus(check) : NOT_REQUIRED,
        agents: Object.values(plan.agents ?? {}).filter((agent) => agent.provider === provider.name).map((agent) => agent.name).sort(),
        endpoint: provider.endpoint ?? null,
      };
    });
    emit(output, 'ProviderCapabilities', data, () =>
      [`${data.length} provider(s)`, ...data.map((item) => `${item.name} (${item.kind}): ${item.capabilities.join(', ')}; credential ${item.credential.kind} ${neutralize(String(item.credential.reference))}: ${item.credential.availability}`)].join('\n'),
    );
    return 0;
  }),
});

interface SmokeArgs extends GlobalArgs {
  live: boolean;
  model: string;
}

const smokeOpenai: CommandModule<GlobalArgs, SmokeArgs> = {
  command: 'smoke-openai',
  describe: "The reference's opt-in live OpenAI request: agentctl has none, and refuses",
  builder: (yargs) =>
    yargs
      .option('live', { type: 'boolean', demandOption: true, describe: 'required acknowledgement that this would perform one live request' })
      .option('model', { type: 'string', default: 'gpt-5.6', describe: 'the model the request would use' }) as never,
  handler: handler<SmokeArgs>(async (argv) => {
    if (!argv.live) throw new AgentctlError('AGENTCTL_E_USAGE', '--live acknowledgement is required', { help: 'give --live to acknowledge one live request' });
    throw new AgentctlError('AGENTCTL_E_PROVIDER_SMOKE_ABSENT', 'agentctl has no live provider smoke request', {
      help: 'run a workflow with an openai agent (examples/ has one) against a test key; `agentctl providers inspect FILE` checks the credential without a request',
    });
  }),
};

export const providersCommand = (compose: Compose): CommandModule<GlobalArgs, GlobalArgs> => ({
  command: 'providers',
  describe: "Inspect a workflow's model providers and their capabilities",
  builder: (yargs) => yargs.command(inspect(compose)).command(smokeOpenai).demandCommand(1, 'name a providers subcommand: inspect') as never,
  handler: () => undefined,
});
