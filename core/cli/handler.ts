// Wraps every command: errors become one diagnostic document and a stable exit code, never a stack trace.
import { ciSystem } from './ci-environment.js';
import { LiveRegion, liveProgressWanted } from './live-region.js';
import { colorEnabled, emitError, palette, toAgentctlError, type OutputOptions } from './output.js';

export interface GlobalArgs {
  output: 'human' | 'json' | 'jsonl';
  color: 'auto' | 'always' | 'never';
  locked?: boolean;
  offline?: boolean;
  verbose?: boolean;
  /** `--no-ci` sets it false: no annotations and no job summary, whatever CI the environment names. */
  ci?: boolean;
  /** The project config's `stateKeys` (key id → variable), set before the command runs; see `stateKeys` in database-option.ts. */
  stateKeys?: Readonly<Record<string, string>>;
}

/** How declarative packs load for this invocation (`--locked`, `--offline`). */
export const packOptions = (argv: GlobalArgs) => ({ locked: argv.locked === true, offline: argv.offline === true });

export function outputOptions(argv: GlobalArgs): OutputOptions {
  const live = liveProgressWanted(argv.output, argv.color, process.stderr, process.env) ? { live: new LiveRegion(palette(true)) } : {};
  return { mode: argv.output === 'human' ? 'human' : 'json', stream: argv.output === 'jsonl', verbose: argv.verbose === true, color: colorEnabled(argv.color, process.stderr, process.env), colorStdout: colorEnabled(argv.color, process.stdout, process.env), ci: argv.ci === false ? null : ciSystem(process.env), ...live };
}

/** `body` returns the exit code; anything it throws is reported on stderr. */
export function handler<Args extends GlobalArgs>(body: (argv: Args, output: OutputOptions) => Promise<number>) {
  return async (argv: Args): Promise<void> => {
    const output = outputOptions(argv);
    try {
      process.exitCode = await body(argv, output);
    } catch (error) {
      // The live region leaves the screen before the error is printed.
      output.live?.close();
      const failure = toAgentctlError(error);
      emitError(output, failure);
      process.exitCode = failure.exitCode;
    } finally {
      output.live?.close();
    }
  };
}
