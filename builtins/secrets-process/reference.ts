// {process: {...}}: the reference's shape, and which executable it names.
import { accessSync, constants, statSync } from 'node:fs';
import { basename, isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { AgentctlError, type SecretResolverContext } from '@agentctl/sdk';

const noNul = (value: string) => !value.includes('\0');

/** The schema of the value of a `{process: ...}` reference. */
export const processReferenceSchema = z.strictObject({
  command: z.string().min(1).refine(noNul, 'command must not contain a NUL byte'),
  args: z
    .array(z.string().refine(noNul, 'an argument must not contain a NUL byte').refine((arg) => Buffer.byteLength(arg, 'utf8') <= 4096, 'an argument is at most 4096 bytes'))
    .max(64)
    .default([]),
  timeoutSeconds: z.number().int().min(1).max(60).default(5),
  outputLimitBytes: z.number().int().min(1).max(65536).default(16384),
});

export type ProcessReference = z.output<typeof processReferenceSchema>;

export function parseReference(value: unknown): ProcessReference {
  const parsed = processReferenceSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const where = issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  throw new AgentctlError('AGENTCTL_E_SECRET_REFERENCE_INVALID', `{process: ...} is invalid: ${where}${issue.message}`, {
    help: 'write {process: {command: NAME, args: [...], timeoutSeconds: 1-60, outputLimitBytes: 1-65536}}',
  });
}

const executable = (path: string) => {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

/**
 * The helper's absolute path: the command's basename must be allowlisted (checked first, so an unlisted helper is
 * never even looked up), then the command is an absolute path or a name found on agentctl's own PATH.
 */
export function resolveHelper(command: string, context: SecretResolverContext): string {
  const allowlist = context.policy.secretProcessAllowlist;
  const name = basename(command);
  if (!allowlist.includes(name)) {
    throw new AgentctlError('AGENTCTL_E_SECRET_PROCESS_NOT_ALLOWED', `{process: ...} helper ${JSON.stringify(command)}: ${JSON.stringify(name)} is not in policy.secretProcessAllowlist${allowlist.length === 0 ? ' (it is empty)' : ''}`);
  }
  if (command.includes('/')) {
    if (!isAbsolute(command)) throw new AgentctlError('AGENTCTL_E_SECRET_REFERENCE_INVALID', `{process: ...} command ${JSON.stringify(command)} is neither an absolute path nor a bare name`);
    if (executable(command)) return command;
  } else {
    for (const folder of (context.environment.PATH ?? '').split(':')) {
      // A relative PATH entry would depend on the working directory: only absolute folders are searched.
      if (isAbsolute(folder) && executable(join(folder, command))) return join(folder, command);
    }
  }
  throw new AgentctlError('AGENTCTL_E_SECRET_PROCESS_NOT_FOUND', `{process: ...} helper ${JSON.stringify(command)} is not an executable file${command.includes('/') ? '' : " on agentctl's PATH"}`);
}
