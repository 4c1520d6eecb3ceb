// `agentctl completion bash|zsh|fish`: a shell completion script. The script asks agentctl itself for candidates
// (`--get-yargs-completions`), so it never goes stale; yargs writes the script for the shell its SHELL names, so the
// shell asked for is named there while the script is generated.
import yargs from 'yargs';
import type { CommandModule } from 'yargs';
import { handler, type GlobalArgs } from '../handler.js';

export const COMPLETION_SHELLS = ['bash', 'zsh', 'fish'] as const;

interface CompletionArgs extends GlobalArgs {
  shell: (typeof COMPLETION_SHELLS)[number];
}

/** The hidden command yargs answers completion requests under; `completion SHELL` is agentctl's own. */
export const COMPLETION_REQUEST_COMMAND = '__completion';

export const completionCommand: CommandModule<GlobalArgs, CompletionArgs> = {
  command: 'completion <shell>',
  describe: 'Print a completion script for bash, zsh or fish',
  builder: (parser) => parser.positional('shell', { choices: COMPLETION_SHELLS, demandOption: true, describe: 'the shell to complete in' }) as never,
  handler: handler<CompletionArgs>(async (argv) => {
    process.stdout.write(completionScript(argv.shell));
    return 0;
  }),
};

function completionScript(shell: CompletionArgs['shell']): string {
  const saved = { SHELL: process.env.SHELL, ZSH_NAME: process.env.ZSH_NAME };
  const log = console.log;
  let script = '';
  process.env.SHELL = `/bin/${shell}`;
  delete process.env.ZSH_NAME;
  console.log = (text: unknown) => void (script += `${String(text)}\n`);
  try {
    yargs([]).scriptName('agentctl').completion(COMPLETION_REQUEST_COMMAND, false).showCompletionScript();
  } finally {
    console.log = log;
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
  return script;
}
