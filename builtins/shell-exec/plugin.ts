// builtin.shell.exec: one allowlisted process, no shell, empty environment, bounded output, whole-tree kill. The
// process itself is run by the isolation mode the action names, through the host's process service.
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { AgentctlError, defineActionKind, diagnostic, EffectFailure, type DispatchContext, type JsonObject, type ProcessResult, type SecretReference } from '../../sdk/index.js';
import { MAX_ARTIFACT_BYTES, shellExecActionSchema, shellExecInputSchema, type ShellExecAction, type ShellExecInput } from './schema.js';

export default defineActionKind({
  name: 'builtin.shell.exec',
  version: '0.1.0',
  hostRange: '^0.1.0',
  description: 'Runs one allowlisted executable with static arguments (and run-time ones from the task), without a shell, under the isolation mode it names.',
  actionSchema: shellExecActionSchema,
  inputSchema: shellExecInputSchema,
  effect: { effectClass: 'process_execution', risk: 'high', idempotency: 'unknown' },
  secretReferences: (action) => Object.values(action.env).filter((value): value is SecretReference => typeof value !== 'string'),
  describe(action, context) {
    const executable = context.process.hasMode(action.isolation) ? context.process.resolveCommand(action.isolation, action.command) : undefined;
    // The access does not depend on the task input (run-time args are data to the program, not to policy).
    const effects = executable === undefined ? undefined : [{ operation: 'process.exec', access: accessOf(action, executable) }];
    return {
      ...(effects ? { effects } : {}),
      process: {
        command: action.command,
        executable: executable ?? null,
        args: action.args,
        cwd: action.cwd,
        environment: Object.keys(action.env),
        isolation: action.isolation,
        ...(action.artifacts.length > 0 ? { artifacts: action.artifacts } : {}),
        limits: limitsOf(action, context.taskTimeoutSeconds ?? context.defaultTimeoutSeconds),
      },
    };
  },
  setup(api) {
    // A command that does not resolve fails before the run exists, not halfway through it.
    api.hooks.preflight.tapPromise('builtin.shell.exec', async (context) => {
      for (const task of context.tasks) {
        if (task.kind !== 'builtin.shell.exec') continue;
        const { command, isolation } = task.action as Pick<ShellExecAction, 'command' | 'isolation'>;
        if (!context.process.resolveCommand(isolation, command)) {
          context.report(
            diagnostic('AGENTCTL_E_COMMAND_NOT_FOUND', {
              message: `task ${task.id}: command "${command}" does not resolve to an executable under isolation ${isolation}`,
              taskId: task.id,
              help: 'use an absolute path or a command installed in /usr/local/bin, /usr/bin or /bin (process isolation never uses PATH)',
            }),
          );
        }
      }
    });
  },
  dispatch: (context) => execute(context),
});

/**
 * What the effect asks policy for; `describe` gives the same before the run. The declared output files are writes:
 * a command may only declare as its output what policy lets it write.
 */
function accessOf(action: ShellExecAction, executable: string) {
  const process = { executable, command: action.command, cwd: action.cwd, environment: Object.keys(action.env), isolation: action.isolation };
  return { tool: 'process.exec', process, ...(action.artifacts.length > 0 ? { writes: action.artifacts } : {}) };
}

function limitsOf(action: ShellExecAction, fallbackTimeoutSeconds: number) {
  return {
    timeoutSeconds: action.timeoutSeconds ?? fallbackTimeoutSeconds,
    stdoutLimitBytes: action.stdoutLimitBytes,
    stderrLimitBytes: action.stderrLimitBytes,
    combinedOutputLimitBytes: action.combinedOutputLimitBytes,
  };
}

async function execute(context: DispatchContext<ShellExecAction, ShellExecInput>) {
  const { action, input } = context;
  // Run-time arguments come after the static ones: the action decides the program and its leading arguments.
  const args = [...action.args, ...input.args];
  const stdin = input.stdin === undefined ? undefined : Buffer.from(input.stdin, 'utf8');
  const executable = context.process.resolveCommand(action.isolation, action.command);
  if (!executable) throw new AgentctlError('AGENTCTL_E_COMMAND_NOT_FOUND', `command "${action.command}" does not resolve to an executable under isolation ${action.isolation}`);
  const limits = limitsOf(action, context.task.timeoutSeconds);
  const recordedEnv: JsonObject = {};
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(action.env)) {
    if (typeof value === 'string') {
      env[name] = value;
      recordedEnv[name] = { value };
    } else {
      env[name] = context.secrets.value(value);
      recordedEnv[name] = { secret: value as JsonObject, digest: context.secrets.digest(value) };
    }
  }
  const request = {
    operation: 'process.exec',
    // stdin is recorded by size and digest, as a write records its content; the task row holds the rendered text.
    input: { command: action.command, executable, args, cwd: action.cwd, env: recordedEnv, isolation: action.isolation, limits, ...(stdin === undefined ? {} : { stdin: { bytes: stdin.length, sha256: createHash('sha256').update(stdin).digest('hex') } }) },
    access: accessOf(action, executable),
  };
  return context.effect(request, async (signal) => {
    const result = await context.process.run(
      {
        isolation: action.isolation,
        executable,
        args,
        cwd: context.resolvePath(action.cwd),
        env,
        ...(stdin === undefined ? {} : { stdin }),
        timeoutMs: limits.timeoutSeconds * 1000,
        limits: { stdout: limits.stdoutLimitBytes, stderr: limits.stderrLimitBytes, combined: limits.combinedOutputLimitBytes },
      },
      signal,
    );
    const ended = outcome(result, context, basename(executable), limits.timeoutSeconds);
    if (action.artifacts.length === 0) return ended;
    // Collected inside the effect, so the digests are part of its recorded result, as the bytes were when it ended.
    const artifacts: JsonObject[] = [];
    for (const path of action.artifacts) artifacts.push({ ...(await context.files.collect(path, { maxBytes: MAX_ARTIFACT_BYTES })) });
    return { ...ended, artifacts };
  });
}

function outcome(result: ProcessResult, context: DispatchContext<ShellExecAction, ShellExecInput>, name: string, timeoutSeconds: number) {
  // Output is cut wherever the process did not end by itself: at a byte limit, a timeout, a cancellation or a kill.
  const truncated = result.truncated || result.end !== 'exited' || result.exitCode === null;
  const options = { truncated };
  const captured = { stdout: context.redact(decode(result.stdout, truncated), options), stderr: context.redact(decode(result.stderr, truncated), options) };
  switch (result.end) {
    case 'exited': {
      const details = { exitCode: result.exitCode, signal: result.signal, ...captured };
      if (result.exitCode === 0) return { exitCode: 0, ...captured };
      const how = result.exitCode === null ? `was killed by ${result.signal}` : `exited with status ${result.exitCode}`;
      throw new EffectFailure('failed', 'AGENTCTL_E_PROCESS_EXIT', `${name} ${how}${tail(captured.stderr)}`, { details });
    }
    case 'overflow': {
      const limitName = { stdout: 'stdoutLimitBytes', stderr: 'stderrLimitBytes', combined: 'combinedOutputLimitBytes' }[result.stream];
      throw new EffectFailure('failed', 'AGENTCTL_E_PROCESS_OUTPUT_LIMIT', `${name} wrote more than ${result.limit} bytes to ${result.stream} (${limitName}); its process tree was killed`, {
        details: { stream: result.stream, limitBytes: result.limit, ...captured },
        help: `raise ${limitName} (at most 16 MiB) or make the command quieter`,
      });
    }
    case 'timeout':
      throw new EffectFailure('uncertain', 'AGENTCTL_E_PROCESS_TIMEOUT', `${name} ran longer than ${timeoutSeconds}s; its process tree was killed`, { details: captured });
    case 'aborted': {
      const deadline = (result.reason as { name?: string } | undefined)?.name === 'TimeoutError';
      if (deadline) throw new EffectFailure('uncertain', 'AGENTCTL_E_PROCESS_TIMEOUT', `${name} outlived the task deadline of ${context.task.timeoutSeconds}s; its process tree was killed`, { details: captured });
      throw new EffectFailure('uncertain', 'AGENTCTL_E_CANCELLED', `${name} was cancelled; its process tree was killed`, { details: captured });
    }
    case 'spawn_error':
      throw new EffectFailure('uncertain', 'AGENTCTL_E_PROCESS_SPAWN', `${name} could not be started: ${result.message}`, { details: captured });
  }
}

/**
 * UTF-8 text; output cut short drops a trailing partial character instead of growing a U+FFFD. Decoded with toString,
 * which keeps ASCII in V8's one-byte form: half the memory of a TextDecoder's UTF-16 result.
 */
function decode(bytes: Buffer, truncated: boolean): string {
  return (truncated ? bytes.subarray(0, completeLength(bytes)) : bytes).toString('utf8');
}

/** Length of `bytes` without a trailing UTF-8 sequence that its lead byte says is incomplete. */
function completeLength(bytes: Buffer): number {
  let start = bytes.length - 1;
  while (start > 0 && start > bytes.length - 4 && (bytes[start]! & 0xc0) === 0x80) start -= 1;
  const lead = bytes[start] ?? 0;
  const length = lead >= 0xf5 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc2 ? 2 : 1;
  return length > 1 && start + length > bytes.length ? start : bytes.length;
}

function tail(stderr: string): string {
  const text = stderr.trim();
  if (!text) return '';
  return `: ${text.length > 500 ? `…${text.slice(-500)}` : text}`;
}
