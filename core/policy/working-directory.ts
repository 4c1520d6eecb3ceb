// A process's working directory must be an existing folder when its effect is decided: a missing cwd, or one that is
// a file, is a definite denial before anything is recorded or started, never a spawn error with an uncertain effect.
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { diagnostic, type PolicyRequest, type PolicyVerdict } from '@agentctl/sdk';

/** Runs after the path checks, so the cwd is already known to stay inside the workspace root. */
export function checkWorkingDirectory({ access, workspaceRoot }: PolicyRequest): PolicyVerdict | undefined {
  const cwd = access.process?.cwd;
  if (cwd === undefined) return undefined;
  const path = resolve(workspaceRoot, cwd);
  let problem: string | undefined;
  try {
    if (!statSync(path).isDirectory()) problem = 'is not a folder';
  } catch (error) {
    problem = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : `cannot be used (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
  }
  if (!problem) return undefined;
  return {
    decision: 'deny',
    diagnostic: diagnostic('AGENTCTL_E_POLICY_CWD_INVALID', {
      message: `cwd "${cwd}" (${path}) ${problem}`,
      help: 'set cwd to a folder inside the workspace, or create it in an earlier task that this one needs',
    }),
  };
}
