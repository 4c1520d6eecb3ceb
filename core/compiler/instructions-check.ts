// `check` proves what a run would read first for an agent: its instructionsFile exists and is a readable regular file.
// Only its metadata and a read permission are examined; the content is read (and recorded) when the task runs.
import { accessSync, constants, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { AgentctlError, diagnostic, type CompiledPlan } from '@agentctl/sdk';
import type { SourceDocument } from './source.js';

/** Throws AGENTCTL_E_FILE_NOT_FOUND (exit 2), with the file's location in the workflow, for each agent whose instructionsFile cannot be read. */
export function checkInstructionFiles(plan: CompiledPlan, workspaceRoot: string, source: SourceDocument): void {
  const problems = Object.values(plan.agents ?? {}).flatMap((agent) => {
    if (agent.instructionsFile === undefined) return [];
    const path = resolve(workspaceRoot, agent.instructionsFile);
    const problem = unreadable(path);
    if (!problem) return [];
    const where = ['spec', 'agents', agent.name, 'instructionsFile'];
    return [
      diagnostic('AGENTCTL_E_FILE_NOT_FOUND', {
        message: `agent ${agent.name}: instructionsFile ${agent.instructionsFile} ${problem}`,
        file: source.file,
        ...source.locate(where),
        path: where.join('.'),
        help: 'create the file (it is read from the workspace when the task runs), or correct spec.agents.' + agent.name + '.instructionsFile',
      }),
    ];
  });
  if (problems.length === 0) return;
  const first = problems[0]!;
  throw new AgentctlError('AGENTCTL_E_FILE_NOT_FOUND', `${first.file}:${first.line}:${first.column}: ${first.message}`, { diagnostics: problems, help: first.help });
}

function unreadable(path: string): string | undefined {
  try {
    if (!statSync(path).isFile()) return 'is not a regular file';
    accessSync(path, constants.R_OK);
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : 'cannot be read';
  }
}
