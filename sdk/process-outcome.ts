// How a process-family kind reads a process result: its output as text, and every ending but a clean exit 0 as an
// effect failure with its stable code. One reading, so every kind reports the same ending the same way.
import type { ErrorCode } from './error-codes.js';
import { EffectFailure } from './errors.js';
import type { ProcessResult } from './isolation.js';
import type { JsonObject } from './json.js';

/**
 * UTF-8 text; output cut short drops a trailing partial character instead of growing a U+FFFD. Decoded with toString,
 * which keeps ASCII in V8's one-byte form: half the memory of a TextDecoder's UTF-16 result.
 */
export function decodeOutput(bytes: Buffer, truncated: boolean): string {
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

/** True when the output was cut: at a byte limit, a timeout, a cancellation or a kill. */
export const outputCut = (result: ProcessResult) => result.truncated || result.end !== 'exited' || result.exitCode === null;

/**
 * A process's stdout and stderr as text with every secret value replaced, as a kind records or parses them. Output
 * that was cut short also hides an end that begins a secret.
 */
export function redactedOutput(result: ProcessResult, redact: (text: string, options?: { readonly truncated?: boolean }) => string): { stdout: string; stderr: string } {
  const options = { truncated: outputCut(result) };
  return { stdout: redact(decodeOutput(result.stdout, options.truncated), options), stderr: redact(decodeOutput(result.stderr, options.truncated), options) };
}

/** What a kind knows about the process it reads the result of. */
export interface ProcessReading {
  /** How the process is named in messages, e.g. the executable's basename. */
  readonly name: string;
  /** The action's timeout, and the task's (whose deadline may come first). */
  readonly timeoutSeconds: number;
  readonly taskTimeoutSeconds: number;
  /** The captured output, already decoded and redacted. */
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * The effect failure for a process that did not exit 0 and get cleaned up, or undefined when it did. A non-zero exit,
 * an output overflow and a resource kill are definite failures; a timeout, a cancellation, a start or pipe error and
 * a failed cleanup leave the effect uncertain.
 */
export function processFailure(result: ProcessResult, reading: ProcessReading): EffectFailure | undefined {
  const { name, stdout, stderr } = reading;
  const captured = { stdout, stderr };
  const fail = (outcome: 'failed' | 'uncertain', code: ErrorCode, message: string, details: JsonObject, help?: string) =>
    new EffectFailure(outcome, code, message, { details, ...(help ? { help } : {}) });
  if (result.cleanupError !== undefined) {
    return fail('uncertain', 'AGENTCTL_E_PROCESS_CLEANUP', `${name} ended (${result.end}), but what ran it could not be cleaned up: ${result.cleanupError}`, { cleanupError: result.cleanupError, ...captured });
  }
  switch (result.end) {
    case 'exited': {
      if (result.exitCode === 0) return undefined;
      const how = result.exitCode === null ? `was killed by ${result.signal}` : `exited with status ${result.exitCode}`;
      return fail('failed', 'AGENTCTL_E_PROCESS_EXIT', `${name} ${how}${tail(stderr)}`, { exitCode: result.exitCode, signal: result.signal, ...captured });
    }
    case 'resource_limit':
      return fail('failed', 'AGENTCTL_E_PROCESS_RESOURCE_LIMIT', `${name} was killed for using more than ${result.limit} bytes of memory (memoryLimitBytes)${tail(stderr)}`, {
        resource: result.resource,
        limit: result.limit,
        ...captured,
      });
    case 'overflow': {
      const limitName = { stdout: 'stdoutLimitBytes', stderr: 'stderrLimitBytes', combined: 'combinedOutputLimitBytes' }[result.stream];
      return fail(
        'failed',
        'AGENTCTL_E_PROCESS_OUTPUT_LIMIT',
        `${name} wrote more than ${result.limit} bytes to ${result.stream} (${limitName}); it and everything it started were killed`,
        { stream: result.stream, limitBytes: result.limit, ...captured },
        `raise ${limitName} (at most 16 MiB) or make the command quieter`,
      );
    }
    case 'timeout':
      return fail('uncertain', 'AGENTCTL_E_PROCESS_TIMEOUT', `${name} ran longer than ${reading.timeoutSeconds}s; it and everything it started were killed`, captured);
    case 'aborted': {
      const deadline = (result.reason as { name?: string } | undefined)?.name === 'TimeoutError';
      if (deadline) return fail('uncertain', 'AGENTCTL_E_PROCESS_TIMEOUT', `${name} outlived the task deadline of ${reading.taskTimeoutSeconds}s; it and everything it started were killed`, captured);
      return fail('uncertain', 'AGENTCTL_E_CANCELLED', `${name} was cancelled; it and everything it started were killed`, captured);
    }
    case 'spawn_error':
      return fail('uncertain', 'AGENTCTL_E_PROCESS_SPAWN', `${name} could not be started: ${result.message}`, captured);
  }
}

/** The end of stderr, for a message. */
export function tail(stderr: string): string {
  const text = stderr.trim();
  if (!text) return '';
  return `: ${text.length > 500 ? `…${text.slice(-500)}` : text}`;
}
