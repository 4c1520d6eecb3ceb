// Command-line parsing (yargs) and dispatch to the command modules.
import yargs, { type Argv } from 'yargs';
import { AgentctlError, isAgentctlError, type PluginDefinition } from '../../sdk/index.js';
import { composer } from './composition.js';
import { checkCommand, planCommand, schemaCommand } from './commands/document.js';
import { inspectCommand, runsCommand } from './commands/inspect.js';
import { pluginsCommand, versionCommand } from './commands/info.js';
import { runCommand } from './commands/run.js';
import { resumeCommand } from './commands/resume.js';
import { approvalsCommand } from './commands/approvals.js';
import { effectsCommand } from './commands/effects.js';
import type { GlobalArgs } from './handler.js';
import { colorEnabled, emitError, type OutputOptions } from './output.js';

/** The value of `--name VALUE` or `--name=VALUE` in raw args. */
function rawOption(args: readonly string[], name: string): string | undefined {
  const index = args.findIndex((arg) => arg === `--${name}` || arg.startsWith(`--${name}=`));
  if (index < 0) return undefined;
  return args[index]!.includes('=') ? args[index]!.slice(args[index]!.indexOf('=') + 1) : args[index + 1];
}

/** Output options read from raw args, for errors raised before yargs has parsed them. */
function rawOutputOptions(args: readonly string[]): OutputOptions {
  const color = rawOption(args, 'color');
  return {
    mode: rawOption(args, 'output') === 'json' ? 'json' : 'human',
    color: colorEnabled(color, process.stderr, process.env),
    colorStdout: colorEnabled(color, process.stdout, process.env),
  };
}

/** Options of an in-process CLI: extra plugins registered after the builtins (embedding, and tests of packs). */
export interface MainOptions {
  readonly plugins?: readonly PluginDefinition[];
}

export async function main(args: string[], options: MainOptions = {}): Promise<void> {
  const compose = composer(options.plugins);
  const parser: Argv<GlobalArgs> = yargs(args)
    .scriptName('agentctl')
    .usage('$0 <command> [options]\n\nRuns declarative, policy-gated YAML workflows with a durable effect ledger.')
    .option('output', { choices: ['human', 'json'] as const, default: 'human' as const, describe: 'human summary, or one JSON document', global: true })
    .option('color', { choices: ['auto', 'always', 'never'] as const, default: 'auto' as const, describe: 'color in human output (NO_COLOR is honoured)', global: true })
    .command(runCommand(compose))
    .command(checkCommand(compose))
    .command(planCommand(compose))
    .command(inspectCommand)
    .command(runsCommand)
    .command(pluginsCommand(compose))
    .command(schemaCommand(compose))
    .command(versionCommand)
    .command(resumeCommand(compose))
    .command(approvalsCommand)
    .command(effectsCommand)
    .completion('completion', 'Print a bash/zsh completion script')
    .demandCommand(1, 'name a command; see agentctl --help')
    .recommendCommands()
    .strict()
    .version(false)
    .help()
    .alias('help', 'h')
    .wrap(Math.min(100, process.stdout.columns || 100))
    .exitProcess(false)
    .fail((message, error) => {
      if (error && !(isAgentctlError(error))) throw error;
      throw error ?? new AgentctlError('AGENTCTL_E_USAGE', message ?? 'invalid command line', { help: 'see agentctl --help' });
    }) as Argv<GlobalArgs>;

  try {
    await parser.parseAsync();
  } catch (error) {
    const failure = isAgentctlError(error) ? error : new AgentctlError('AGENTCTL_E_USAGE', (error as Error).message, { help: 'see agentctl --help' });
    emitError(rawOutputOptions(args), failure);
    process.exitCode = failure.exitCode;
  }
}
