// Runs a secret helper: no shell, empty environment, own process group, bounded stdout, whole-group kill.
import { spawn } from 'node:child_process';
import { AgentctlError } from '@agentctl/sdk';
import type { ProcessReference } from './reference.js';

/** How long to wait for stdout to close once the helper exited and its group was killed. */
const PIPE_GRACE_MS = 1000;

/** The helper's stdout, or a refusal naming the status only (its output and stderr never reach a message). */
export function runHelper(executable: string, reference: ProcessReference, cwd: string, signal: AbortSignal): Promise<Buffer> {
  const { command, args, timeoutSeconds, outputLimitBytes } = reference;
  const label = `{process: ...} helper ${JSON.stringify(command)}`;
  return new Promise((resolve, reject) => {
    const child = spawn(executable, args, { cwd, env: {}, stdio: ['ignore', 'pipe', 'ignore'], detached: true, shell: false, windowsHide: true });
    const chunks: Buffer[] = [];
    let size = 0;
    let refusal: AgentctlError | undefined;
    let settled = false;
    let grace: NodeJS.Timeout | undefined;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;

    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // ESRCH: the group is gone.
      }
    };
    const stop = (error: AgentctlError) => {
      refusal ??= error;
      killGroup();
    };
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      clearTimeout(grace);
      signal.removeEventListener('abort', onAbort);
      child.stdout?.destroy();
      if (refusal) return reject(refusal);
      if (!exit || exit.code !== 0) {
        const status = exit?.signal ? `was killed by signal ${exit.signal}` : `exited with status ${exit?.code ?? 'unknown'}`;
        return reject(new AgentctlError('AGENTCTL_E_SECRET_PROCESS_FAILED', `${label} ${status}`));
      }
      resolve(Buffer.concat(chunks, size));
    };

    child.stdout!.on('data', (chunk: Buffer) => {
      if (refusal) return;
      size += chunk.length;
      if (size > outputLimitBytes) return stop(new AgentctlError('AGENTCTL_E_SECRET_PROCESS_OUTPUT_TOO_LARGE', `${label} wrote more than ${outputLimitBytes} bytes to stdout`));
      chunks.push(chunk);
    });
    const deadline = setTimeout(() => stop(new AgentctlError('AGENTCTL_E_SECRET_PROCESS_TIMEOUT', `${label} did not exit within ${timeoutSeconds} s; its process group was killed`)), timeoutSeconds * 1000);
    const onAbort = () => stop(new AgentctlError('AGENTCTL_E_CANCELLED', `${label} was stopped: agentctl was cancelled`));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });

    child.once('error', (error: NodeJS.ErrnoException) => {
      stop(new AgentctlError('AGENTCTL_E_SECRET_PROCESS_FAILED', `${label} could not be started (${error.code ?? 'error'})`));
      finish();
    });
    child.once('exit', (code, exitSignal) => {
      exit = { code, signal: exitSignal };
      // Whatever the helper left in its group must not outlive it (nor hold stdout open).
      killGroup();
      grace = setTimeout(finish, PIPE_GRACE_MS);
      child.once('close', finish);
    });
  });
}
