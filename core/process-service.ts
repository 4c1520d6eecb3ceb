// The host's process service: kinds hand it a process spec; the isolation mode named by the spec runs it.
import { AgentctlError, type DispatchProcessService, type IsolatedAction, type IsolationMode, type IsolationOptions, type ProcessMount, type ProcessService, type ProcessSpec } from '@agentctl/sdk';
import { optionsOf } from './isolation-options.js';
import type { Interception } from './interceptors.js';

interface ModeSource {
  isolationMode(mode: string): IsolationMode | undefined;
  isolationModes(): string[];
}

export function createProcessService(host: ModeSource): ProcessService {
  return Object.freeze({
    hasMode: (isolation: string) => host.isolationMode(isolation) !== undefined,
    resolveCommand: (isolation: string, command: string) => modeOf(host, isolation).resolveCommand(command),
    optionsOf: (action: IsolatedAction) => optionsOf(modeOf(host, action.isolation), action),
    prepare: async (isolation: string, options: IsolationOptions | undefined, signal: AbortSignal, mounts: readonly ProcessMount[] = []) => {
      const mode = modeOf(host, isolation);
      refuseMounts(mode, mounts);
      return (await mode.prepare?.(options, signal)) ?? {};
    },
  });
}

/**
 * The service as one dispatch sees it: `run` is bound to the task's signal; propagators add to the environment. A
 * secret resolver's service has no interception: its helper runs before any task, where nothing is propagated.
 */
export function dispatchProcessService(host: ModeSource & { process: ProcessService; interception?: Interception }, taskSignal: AbortSignal): DispatchProcessService {
  const propagation = host.interception?.propagation;
  return Object.freeze({
    ...host.process,
    run: async (spec: ProcessSpec, signal: AbortSignal = taskSignal) => {
      const mode = modeOf(host, spec.isolation);
      // Checked again here: a kind that skipped `prepare` still never runs a mount its mode cannot honour.
      refuseMounts(mode, spec.mounts ?? []);
      return mode.run(propagation ? propagation.process(spec) : spec, signal);
    },
  });
}

/** A mount the mode cannot honour is refused before anything runs; a mode that says nothing about mounts takes none. */
function refuseMounts(mode: IsolationMode, mounts: readonly ProcessMount[]): void {
  for (const mount of mounts) {
    const reason = mode.refuseMount ? mode.refuseMount(mount) : 'it takes no mounts';
    if (reason === undefined) continue;
    const source = 'workspace' in mount.source ? `workspace path ${mount.source.workspace}` : `artifact ${mount.source.artifact}`;
    throw new AgentctlError('AGENTCTL_E_MOUNT_UNSUPPORTED', `isolation ${mode.mode} cannot mount ${source} at ${mount.target}${mount.readOnly ? ' read-only' : ''}: ${reason}`, {
      help: 'run the action under an isolation mode that can honour the mount (`agentctl plan` shows its mounts), or change the mount',
    });
  }
}

function modeOf(host: ModeSource, isolation: string): IsolationMode {
  const mode = host.isolationMode(isolation);
  if (mode) return mode;
  const known = host.isolationModes().join(', ') || '(none)';
  throw new AgentctlError('AGENTCTL_E_UNKNOWN_ISOLATION', `no plugin provides isolation mode "${isolation}"`, { help: `registered isolation modes: ${known}` });
}
