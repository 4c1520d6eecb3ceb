// Fields of a builtin.shell.exec action. All static: `plan` shows exactly what will run.
import { z } from 'zod';
import { processLimitFields, secretReferenceSchema } from '../../sdk/index.js';

/** A string the kernel can pass to a process: no NUL byte. */
const processString = () => z.string().refine((text) => !text.includes('\0'), 'must not contain a NUL byte');

export const shellExecActionSchema = z.strictObject({
  command: processString()
    .min(1)
    .refine((command) => command.startsWith('/') || !command.includes('/'), 'command must be an absolute path or a bare name (no relative paths)')
    .describe('Absolute path, or a bare name looked up in /usr/local/bin:/usr/bin:/bin (never PATH).'),
  args: z.array(processString()).default([]).describe('Arguments, passed directly: there is never a shell.'),
  cwd: processString().min(1).default('.').describe('Working directory inside the workspace root.'),
  env: z
    .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'environment names are letters, digits and "_"'), z.union([processString(), secretReferenceSchema]))
    .default({})
    .describe('The child environment (otherwise empty): a secret reference such as {env: NAME}, or a plain non-secret string.'),
  isolation: z
    .string()
    .regex(/^[a-z][a-z0-9-]*$/, 'an isolation mode is a lower-case name such as process')
    .default('process')
    .describe('The isolation mode that runs the process (process: a child process with an allowlisted command; not a sandbox).'),
  ...processLimitFields,
});

export type ShellExecAction = z.output<typeof shellExecActionSchema>;
