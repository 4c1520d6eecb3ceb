// Command-line parsing (yargs) and dispatch to the command modules.
import yargs, { type Argv } from 'yargs';
import { AgentctlError, isAgentctlError, type PluginDefinition } from '@agentctl/sdk';
import { STDIN_ARGUMENT } from '../compiler/source.js';
import { closest } from '../compiler/suggest.js';
import { applyProjectConfig, type ResolvedSettings } from '../config/settings.js';
import { Composition } from './composition.js';
import { configCommand } from './commands/config.js';
import { artifactsCommand } from './commands/artifacts.js';
import { dbCommand } from './commands/db.js';
import { gcCommand } from './commands/gc.js';
import { memoryCommand } from './commands/memory.js';
import { checkCommand, planCommand, schemaCommand } from './commands/document.js';
import { inspectCommand, runsCommand } from './commands/inspect.js';
import { versionCommand } from './commands/info.js';
import { packsCommand } from './commands/packs.js';
import { pluginsCommand } from './commands/plugins.js';
import { replayCommand } from './commands/replay.js';
import { reportCommand } from './commands/report.js';
import { compensateCommand } from './commands/compensate.js';
import { cancelCommand } from './commands/cancel.js';
import { forkCommand, repairCommand, retryCommand } from './commands/derive.js';
import { runCommand } from './commands/run.js';
import { resumeCommand } from './commands/resume.js';
import { approvalsCommand } from './commands/approvals.js';
import { effectsCommand } from './commands/effects.js';
import { authCommand } from './commands/auth.js';
import { doctorCommand } from './commands/doctor.js';
import { explainCommand } from './commands/explain.js';
import { providersCommand } from './commands/providers.js';
import { completionCommand, COMPLETION_REQUEST_COMMAND } from './commands/completion.js';
import { ciSystem } from './ci-environment.js';
import { outputOptions, type GlobalArgs } from './handler.js';
import { colorEnabled, emitError, type OutputOptions } from './output.js';

/** Every value of `--name VALUE` or `--name=VALUE` in raw args. */
function rawOptions(args: readonly string[], name: string): (string | undefined)[] {
  const values: (string | undefined)[] = [];
  args.forEach((arg, index) => {
    if (arg === `--${name}`) values.push(args[index + 1]);
    else if (arg.startsWith(`--${name}=`)) values.push(arg.slice(name.length + 3));
  });
  return values;
}

/** Output options read from raw args, for errors raised before yargs has parsed them. Any `--output json` wins. */
function rawOutputOptions(args: readonly string[]): OutputOptions {
  const color = rawOptions(args, 'color').at(-1);
  return {
    mode: rawOptions(args, 'output').some((value) => value === 'json' || value === 'jsonl') ? 'json' : 'human',
    color: colorEnabled(color, process.stderr, process.env),
    colorStdout: colorEnabled(color, process.stdout, process.env),
    ci: args.includes('--no-ci') ? null : ciSystem(process.env),
  };
}

/** Options that may be given more than once; every other option takes one value (see docs/cli.md). */
const REPEATABLE = new Set(['input', 'from', 'workflows', 'var', 'vars-file', 'emit-option', 'filter']);
/** Options repeatable in one command only (elsewhere the same name takes one value): command words → option names. */
const REPEATABLE_IN: Readonly<Record<string, readonly string[]>> = { 'runs import': ['run'] };

/** Commands of the CLI contract (SPEC §11) that this version does not have. */

/** Commands that build a host: the config's packs are loaded (and refused) before they start. */
const HOSTED = new Set(['run', 'check', 'plan', 'doctor', 'explain', 'providers', 'auth', 'resume', 'retry', 'repair', 'fork', 'plugins', 'schema', 'packs', 'report']);
/** Commands that continue a recorded run: they load the packs the run recorded, once they have read it. */
const RECOVERY = new Set(['resume', 'retry', 'repair', 'fork']);
/** Commands that only work on the database: they take db, output and color from a data config and never import a code config. */
const LEDGER_ONLY = new Set(['inspect', 'runs', 'effects', 'approvals', 'artifacts', 'replay']);
/** Commands that never read the project config: a broken config must not stop them. */
const CONFIG_FREE = new Set(['version', 'completion']);

/** Options of an in-process CLI: extra plugins registered after the builtins (embedding, and tests of packs). */
export interface MainOptions {
  readonly plugins?: readonly PluginDefinition[];
}

export async function main(args: string[], options: MainOptions = {}): Promise<void> {
  try {
    // A deleted current folder makes every relative path meaningless, and yargs itself asks for it.
    process.cwd();
  } catch (error) {
    fail(args, new AgentctlError('AGENTCTL_E_USAGE', `the current folder cannot be read (${(error as NodeJS.ErrnoException).code ?? 'unknown error'}); it may have been deleted`, { help: 'cd to an existing folder and run agentctl again' }));
    return;
  }
  const composition = new Composition(options.plugins);
  const compose = composition.compose;
  let settings: ResolvedSettings | undefined;
  // Errors before the config is read are reported as the command line asks; after it, as the config completes it.
  let reportAs: OutputOptions | undefined;
  const commands = [runCommand(composition), checkCommand(compose), planCommand(compose), doctorCommand(compose), inspectCommand, runsCommand(composition), reportCommand(compose), resumeCommand(composition), replayCommand(compose), retryCommand(composition), repairCommand(composition), forkCommand(composition), compensateCommand(compose), cancelCommand, approvalsCommand, effectsCommand(composition), artifactsCommand, dbCommand, memoryCommand(compose), gcCommand, authCommand(compose), providersCommand(compose), explainCommand(compose), packsCommand(compose, () => ({ packs: composition.packs, config: settings?.loaded ?? null })), pluginsCommand(compose), configCommand(() => settings!), schemaCommand(compose), versionCommand, completionCommand];
  const names = commands.map((command) => String(command.command).split(' ')[0]!);
  // yargs reads a lone `-` as an empty option; it means standard input, so it is passed on as a marker.
  const parser: Argv<GlobalArgs> = yargs(args.map((arg) => (arg === '-' ? STDIN_ARGUMENT : arg)))
    .scriptName('agentctl')
    .usage('$0 <command> [options]\n\nRuns declarative, policy-gated YAML workflows with a durable effect ledger.')
    // No yargs defaults for --output and --color: an absent flag is taken from the project config, else the default.
    .option('output', { choices: ['human', 'json', 'jsonl'] as const, defaultDescription: 'human', describe: 'human summary, one JSON document, or (jsonl) a run\'s events as JSON lines then that document', global: true })
    .option('color', { choices: ['auto', 'always', 'never'] as const, defaultDescription: 'auto', describe: 'color in human output (NO_COLOR is honoured)', global: true })
    .option('config', { type: 'string', describe: 'the project config file to use; --no-config uses none (default: searched for from the workflow\'s folder, else the current one)', global: true })
    .option('locked', { type: 'boolean', default: false, describe: 'refuse packs that differ from agentctl.pack.lock, or a workflow with packs and no lock', global: true })
    .option('offline', { type: 'boolean', default: false, describe: 'load packs only from local and vendored sources', global: true })
    .option('verbose', { type: 'boolean', default: false, describe: 'in human mode, also print the full diagnostics (code, location, help) of a command that succeeds', global: true })
    .option('ci', { type: 'boolean', default: true, describe: 'meet the CI system the environment names (GitHub Actions: annotations and a job summary); --no-ci turns that off', global: true })
    // Answers the completion scripts' requests (--get-yargs-completions); `completion SHELL` prints the scripts.
    .completion(COMPLETION_REQUEST_COMMAND, false)
    .demandCommand(1, 'name a command; see agentctl --help')
    .strict()
    .check((argv) => {
      for (const [key, value] of Object.entries(argv)) {
        // yargs adds camelCase aliases of dashed options; the dashed name is the one users type.
        if (key === '_' || key === '$0' || REPEATABLE.has(key) || /[A-Z]/.test(key) || !Array.isArray(value)) continue;
        if (REPEATABLE_IN[argv._.slice(0, 2).join(' ')]?.includes(key)) continue;
        throw new AgentctlError('AGENTCTL_E_USAGE', `--${key} is given ${value.length} times; it takes one value`, { help: `give --${key} once` });
      }
      return true;
    }, true)
    .version(false)
    .help()
    .alias('help', 'h')
    .wrap(Math.min(100, process.stdout.columns || 100))
    .exitProcess(false)
    .fail((message, error, usage) => {
      if (error && !isAgentctlError(error)) throw error;
      throw error ?? usageError(message ?? 'invalid command line', args, names, knownOptions(parser), commandUsage(parser, usage));
    }) as Argv<GlobalArgs>;
  for (const command of commands) parser.command(command as never);
  skipHelpCache(parser);
  // Before any command runs: the project config fills the options the command line left out, and a command that
  // builds a host gets the config's packs, loaded and checked here, before it can open a database.
  parser.middleware(async (argv) => {
    const command = String(argv._[0] ?? '');
    if (command === '' || CONFIG_FREE.has(command)) {
      argv.output ??= 'human';
      argv.color ??= 'auto';
      return;
    }
    // `runs gather` runs a workflow: it builds a host with the config's packs, as `run` does.
    const gathers = command === 'runs' && argv._[1] === 'gather';
    settings = await applyProjectConfig(argv as never, { importCode: gathers || !LEDGER_ONLY.has(command) });
    reportAs = outputOptions(argv);
    // `packs lock` and `packs vendor` write the lock: they load the packs without checking them against it.
    const writesLock = command === 'packs' && ['lock', 'update', 'vendor'].includes(String(argv._[1] ?? ''));
    // `packs verify-lock` is the check --locked makes, alone.
    const verifiesLock = command === 'packs' && argv._[1] === 'verify-lock';
    // `packs new` writes a new pack's files: it loads no pack, so a project's broken one does not stop it.
    const scaffolds = command === 'packs' && argv._[1] === 'new';
    if ((HOSTED.has(command) || gathers) && !RECOVERY.has(command) && !scaffolds) await composition.loadPacks(settings.loaded, { locked: argv.locked === true || verifiesLock, verify: !writesLock });
  });

  if (args.length === 0) {
    // Bare `agentctl` is a request for help, not a mistake.
    parser.showHelp('log');
    return;
  }
  try {
    await parser.parseAsync();
  } catch (error) {
    fail(args, isAgentctlError(error) ? error : new AgentctlError('AGENTCTL_E_USAGE', (error as Error).message, { help: 'see agentctl --help' }), reportAs);
  }
}

/** Reports that stdout could not be written (the device is full, ...): on stderr, in the mode the caller asked for. */
export function reportOutputFailure(args: readonly string[], error: NodeJS.ErrnoException): void {
  const failure = new AgentctlError('AGENTCTL_E_OUTPUT_WRITE', `cannot write the output to stdout: ${error.code ?? error.message}`);
  fail(args, failure);
}

function fail(args: readonly string[], failure: AgentctlError, options: OutputOptions = rawOutputOptions(args)): void {
  emitError(options, failure);
  process.exitCode = failure.exitCode;
}

/** yargs' "Unknown argument" in our words: an unknown command lists the commands; a mistyped option gets a suggestion. */
function usageError(message: string, args: readonly string[], commands: readonly string[], known: readonly string[], at: CommandUsage): AgentctlError {
  const unknown = /^Unknown arguments?: (.+)$/.exec(message);
  if (!unknown) return argumentError(message, at);
  const listed = unknown[1]!.split(', ').map((word) => (word === STDIN_ARGUMENT ? '-' : word));
  // yargs also names the camelCase alias of an unknown dashed option (`--some-thing` → someThing).
  const kebab = (word: string) => word.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
  const words = listed.filter((word) => !/[A-Z]/.test(word) || !listed.includes(kebab(word)));
  const isOption = (word: string) => args.some((arg) => arg === `--${word}` || arg.startsWith(`--${word}=`) || arg === `-${word}`);
  const first = args.find((arg) => !arg.startsWith('-'));
  const command = words.find((word) => word === first && !isOption(word) && !commands.includes(word));
  if (command !== undefined) {
    const near = closest(command, commands);
    return new AgentctlError('AGENTCTL_E_USAGE', `unknown command ${command}`, { help: `${near ? `did you mean ${near}? ` : ''}commands: ${commands.join(', ')}` });
  }
  const options = words.filter(isOption);
  const extra = words.filter((word) => !isOption(word));
  const dashed = (word: string) => (word.length > 1 ? `--${word}` : `-${word}`);
  const problems = [
    ...(options.length > 0 ? [`unknown option${options.length > 1 ? 's' : ''} ${options.map(dashed).join(', ')}`] : []),
    ...(extra.length > 0 ? [`unexpected argument${extra.length > 1 ? 's' : ''} ${extra.join(', ')}`] : []),
  ];
  const hints = options.flatMap((word) => {
    const near = closest(word, known.filter((name) => name.length > 1));
    return near ? [`did you mean --${near} instead of ${dashed(word)}?`] : [];
  });
  return new AgentctlError('AGENTCTL_E_USAGE', problems.join('; '), { help: [...hints, 'see agentctl COMMAND --help for the arguments and options'].join(' ') });
}

/** The command yargs was parsing when it failed: its usage line (`agentctl packs verify-lock <file>`), and its name. */
interface CommandUsage {
  readonly name: string;
  readonly line: string;
  /** Its positional arguments, required ones as `<file>`, optional ones as `[file]`. */
  readonly positionals: readonly string[];
}

function commandUsage(parser: Argv<GlobalArgs>, usage: unknown): CommandUsage {
  const path = (parser as unknown as { getInternalMethods(): { getContext(): { fullCommands: string[] } } }).getInternalMethods().getContext().fullCommands;
  const words = path.flatMap((command) => command.split(' '));
  const name = ['agentctl', ...words.filter((word) => !/^[<[]/.test(word))].join(' ');
  const declared = (usage as { getUsage?(): [string, string][] }).getUsage?.()[0]?.[0]?.split('\n')[0]?.replace('$0', 'agentctl');
  return { name, line: path.length > 0 ? `${['agentctl', ...words].join(' ')} [options]` : (declared ?? 'agentctl <command> [options]'), positionals: words.filter((word) => /^[<[]/.test(word)) };
}

/** yargs' other complaints (a missing argument or option, a value outside its choices) in agentctl's words. */
function argumentError(message: string, command: CommandUsage): AgentctlError {
  const help = `usage: ${command.line}; see ${command.name} --help`;
  const fail = (text: string) => new AgentctlError('AGENTCTL_E_USAGE', text, { help });
  const required = command.positionals.filter((word) => word.startsWith('<'));
  const missing = /^Not enough non-option arguments: got (\d+), need at least (\d+)$/.exec(message);
  if (missing) {
    const absent = required.slice(Number(missing[1]));
    return fail(`${command.name} needs ${absent.length > 0 ? `the argument${absent.length > 1 ? 's' : ''} ${absent.join(' ')}` : `${missing[2]} argument(s)`}`);
  }
  const demanded = /^Missing required arguments?: (.+)$/.exec(message);
  if (demanded) {
    const names = demanded[1]!.split(', ').map((name) => (command.positionals.some((word) => word.slice(1, -1).replace(/\.\.$/, '') === name) ? `<${name}>` : `--${name}`));
    return fail(`${command.name} needs ${names.join(', ')}`);
  }
  const valueless = /^Not enough arguments following: (.+)$/.exec(message);
  if (valueless) return fail(`--${valueless[1]} needs a value`);
  const extra = /^Too many non-option arguments: got (\d+), maximum of (\d+)$/.exec(message);
  if (extra) return fail(`${command.name} takes at most ${extra[2]} argument(s) and got ${extra[1]}`);
  const choices = /Argument: ([^,]+), Given: (.+), Choices: (.+)$/m.exec(message);
  if (choices) return fail(`--${choices[1]} ${choices[2]} is not one of ${choices[3]}`);
  return fail(message);
}

/**
 * yargs renders a command's whole help text as it starts the command's handler, so that help shown while the handler
 * runs describes that command. agentctl never shows help once a command runs (`.fail()` throws instead of printing
 * it, and `showHelp` is only called for a bare `agentctl`), so that render, which measures and wraps every line, is
 * skipped: `--help` and the bare `agentctl` still render help when they ask for it.
 */
function skipHelpCache(parser: Argv<GlobalArgs>): void {
  const usage = (parser as unknown as { getInternalMethods(): { getUsageInstance(): { cacheHelpMessage(): void } } }).getInternalMethods().getUsageInstance();
  usage.cacheHelpMessage = () => undefined;
}

/** The options yargs knows at the moment it failed: the global ones and the current command's. */
function knownOptions(parser: Argv<GlobalArgs>): string[] {
  return Object.keys((parser as unknown as { getOptions(): { key: Record<string, unknown> } }).getOptions().key);
}
