// The host's process service: kinds hand it a process spec; the isolation mode named by the spec runs it.
import { AgentctlError, type DispatchProcessService, type IsolationMode, type IsolationOptions, type ProcessService, type ProcessSpec } from '@agentctl/sdk';
import type { Interception } from './interceptors.js';

interface ModeSource {
  isolationMode(mode: string): IsolationMode | undefined;
  isolationModes(): string[];
}

export function createProcessService(host: ModeSource): ProcessService {
  return Object.freeze({
    hasMode: (isolation: string) => host.isolationMode(isolation) !== undefined,
    resolveCommand: (isolation: string, command: string) => modeOf(host, isolation).resolveCommand(command),
    prepare: async (isolation: string, options: IsolationOptions | undefined, signal: AbortSignal) => (await modeOf(host, isolation).prepare?.(options, signal)) ?? {},
  });
}

/** The service as one dispatch sees it: `run` is bound to the task's signal; propagators add to the environment. */
export function dispatchProcessService(host: ModeSource & { process: ProcessService; interception: Interception }, taskSignal: AbortSignal): DispatchProcessService {
  const propagation = host.interception.propagation;
  return Object.freeze({
    ...host.process,
    run: propagation
      ? (spec: ProcessSpec, signal: AbortSignal = taskSignal) => modeOf(host, spec.isolation).run(propagation.process(spec), signal)
      : (spec: ProcessSpec, signal: AbortSignal = taskSignal) => modeOf(host, spec.isolation).run(spec, signal),
  });
}

function modeOf(host: ModeSource, isolation: string): IsolationMode {
  const mode = host.isolationMode(isolation);
  if (mode) return mode;
  const known = host.isolationModes().join(', ') || '(none)';
  throw new AgentctlError('AGENTCTL_E_UNKNOWN_ISOLATION', `no plugin provides isolation mode "${isolation}"`, { help: `registered isolation modes: ${known}` });
}
