// Fields of a builtin.shell.exec action, all static, so `plan` shows exactly what will run; and the task input
// (`with`), the only way run-time values reach the child: arguments after the static ones, and text on stdin.
import { z } from 'zod';
import { processActionFields, processString } from '@agentctl/sdk';

/** Declared output files per action, and the size of each. */
export const MAX_ARTIFACTS = 64;
export const MAX_ARTIFACT_BYTES = 64 * 1024 * 1024;

export const shellExecActionSchema = z
  .strictObject({
    ...processActionFields,
    artifacts: z
      .array(processString().min(1).refine((path) => !path.endsWith('/'), 'an artifact is a file: a path ending in "/" names a folder'))
      .max(MAX_ARTIFACTS)
      .default([])
      .describe(
        'Files the command writes, relative to the workspace root and below a writable root: after it exits with status 0 each is kept in the artifact store and listed in the task output; a missing one fails the task.',
      ),
  });

export type ShellExecAction = z.output<typeof shellExecActionSchema>;

/** Linux refuses one argument longer than 128 KiB (MAX_ARG_STRLEN). */
const MAX_ARGUMENT_BYTES = 128 * 1024;
/** Run-time arguments per task. */
const MAX_INPUT_ARGS = 1024;
/** Text written to the child's stdin. */
export const MAX_STDIN_BYTES = 1024 * 1024;

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

export const shellExecInputSchema = z.strictObject({
  args: z
    .array(processString().refine((text) => bytes(text) <= MAX_ARGUMENT_BYTES, `an argument is at most ${MAX_ARGUMENT_BYTES} bytes`))
    .max(MAX_INPUT_ARGS)
    .default([])
    .describe("Arguments appended after the action's static args, e.g. from templates; passed directly, never through a shell."),
  stdin: processString()
    .refine((text) => bytes(text) <= MAX_STDIN_BYTES, `stdin is at most ${MAX_STDIN_BYTES} bytes (1 MiB)`)
    .optional()
    .describe("UTF-8 text written to the child's stdin, which is then closed; without it stdin is /dev/null."),
});

export type ShellExecInput = z.output<typeof shellExecInputSchema>;
