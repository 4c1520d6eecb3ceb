// Runs a secret helper through the host's process service, under process isolation: no shell, empty environment,
// own process group (and cgroup where there is one), bounded stdout, a deadline and whole-tree kill.
import { AgentctlError, type ProcessResult, type SecretResolverContext } from '@agentctl/sdk';
import type { ProcessReference } from './reference.js';

/** The mode a helper runs under: a child of agentctl, as a secret helper always was. */
const ISOLATION = 'process';
/** The helper's stderr is read and dropped (never shown: it may hold the secret); bounded like any process output. */
const STDERR_LIMIT_BYTES = 1024 * 1024;

/** The helper's stdout, or a refusal naming the status only (its output and stderr never reach a message). */
export async function runHelper(executable: string, reference: ProcessReference, context: Pick<SecretResolverContext, 'process' | 'workspaceRoot' | 'signal'>): Promise<Buffer> {
  const { command, args, timeoutSeconds, outputLimitBytes } = reference;
  const label = `{process: ...} helper ${JSON.stringify(command)}`;
  const result = await context.process.run(
    {
      isolation: ISOLATION,
      executable,
      args,
      cwd: context.workspaceRoot,
      env: {},
      timeoutMs: timeoutSeconds * 1000,
      limits: { stdout: outputLimitBytes, stderr: STDERR_LIMIT_BYTES, combined: outputLimitBytes + STDERR_LIMIT_BYTES },
    },
    context.signal,
  );
  const refusal = refusalOf(result, label, reference);
  if (refusal) throw refusal;
  return result.stdout;
}

function refusalOf(result: ProcessResult, label: string, reference: ProcessReference): AgentctlError | undefined {
  switch (result.end) {
    case 'exited':
      if (result.exitCode === 0) return undefined;
      return new AgentctlError('AGENTCTL_E_SECRET_PROCESS_FAILED', `${label} ${result.signal ? `was killed by signal ${result.signal}` : `exited with status ${result.exitCode ?? 'unknown'}`}`);
    case 'overflow':
      if (result.stream === 'stdout') return new AgentctlError('AGENTCTL_E_SECRET_PROCESS_OUTPUT_TOO_LARGE', `${label} wrote more than ${reference.outputLimitBytes} bytes to stdout`);
      return new AgentctlError('AGENTCTL_E_SECRET_PROCESS_FAILED', `${label} wrote more than ${result.limit} bytes to ${result.stream === 'stderr' ? 'stderr' : 'stdout and stderr'}; it was killed`);
    case 'timeout':
      return new AgentctlError('AGENTCTL_E_SECRET_PROCESS_TIMEOUT', `${label} did not exit within ${reference.timeoutSeconds} s; its process group was killed`);
    case 'aborted':
      return new AgentctlError('AGENTCTL_E_CANCELLED', `${label} was stopped: agentctl was cancelled`);
    case 'spawn_error':
      return new AgentctlError('AGENTCTL_E_SECRET_PROCESS_FAILED', `${label} could not be started (${result.message})`);
    case 'resource_limit':
      return new AgentctlError('AGENTCTL_E_SECRET_PROCESS_FAILED', `${label} was killed at its ${result.resource} limit`);
  }
}
