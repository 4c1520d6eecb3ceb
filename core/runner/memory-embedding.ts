// Long-term memory that embeds through a `spec.providers` entry: what preflight resolves and checks for it (the
// entry's credential and headers, the URLs its kind's `embed` reaches), and the provider the run's memory service
// embeds with (the resolved values, the run's network client under the network policy).
import { AgentctlError, type CompiledPlan, type CompiledProvider, type NetworkClient, type SectionSecret, type SectionUrl, type TaskSecrets } from '@agentctl/sdk';
import type { Host } from '../host.js';
import type { MemoryServiceOptions } from '../memory/service.js';

/** The provider entry the plan's long-term memory embeds through, or undefined (`local_hash`, or no long-term memory). */
export function embeddingEntry(plan: CompiledPlan): CompiledProvider | undefined {
  const name = plan.longTermMemory?.embedding.provider;
  if (name === undefined || name === 'local_hash') return undefined;
  return plan.providers && Object.hasOwn(plan.providers, name) ? plan.providers[name] : undefined;
}

/** The secrets preflight resolves for the embedding entry: its credential and headers, named where they are written. */
export function embeddingSecrets(plan: CompiledPlan): SectionSecret[] {
  const entry = embeddingEntry(plan);
  if (!entry) return [];
  return [
    ...(entry.credential ? [{ reference: entry.credential, where: `spec.providers.${entry.name}.credential` }] : []),
    ...Object.entries(entry.headers).map(([header, reference]) => ({ reference, where: `spec.providers.${entry.name}.headers.${header}` })),
  ];
}

/** The URLs the embedding entry's kind reaches, judged by the network policy in preflight like an agent's provider. */
export function embeddingUrls(host: Host, plan: CompiledPlan): SectionUrl[] {
  const entry = embeddingEntry(plan);
  if (!entry) return [];
  return (host.provider(entry.kind)?.embeddingUrls?.(settingsOf(entry)) ?? []).map((url) => ({ url, where: `spec.providers.${entry.name}` }));
}

const settingsOf = (entry: CompiledProvider) => ({ name: entry.name, kind: entry.kind, ...(entry.endpoint ? { endpoint: entry.endpoint } : {}), ...(entry.apiVersion ? { apiVersion: entry.apiVersion } : {}) });

function unavailableNetwork(): NetworkClient {
  const refuse = () => Promise.reject(new AgentctlError('AGENTCTL_E_NETWORK_UNAVAILABLE', 'no plugin provides the network client; the embedding provider cannot be reached'));
  return { check: refuse, request: refuse };
}

/**
 * The provider the memory service embeds with, for one task attempt: each request is bounded by the task's signal
 * (or the effect's) and its timeout. Undefined when the plan embeds with `local_hash`.
 */
export function memoryProvider(host: Host, plan: CompiledPlan, secrets: TaskSecrets, network: NetworkClient | undefined, signal: AbortSignal, timeoutMs: number): MemoryServiceOptions['provider'] {
  const entry = embeddingEntry(plan);
  const kind = entry && host.provider(entry.kind);
  if (!entry || !kind) return undefined;
  return {
    kind,
    context: (effectSignal) => ({
      provider: settingsOf(entry),
      ...(entry.credential ? { credential: secrets.value(entry.credential) } : {}),
      headers: Object.fromEntries(Object.entries(entry.headers).map(([header, reference]) => [header, secrets.value(reference)])),
      network: network ?? unavailableNetwork(),
      signal: effectSignal ?? signal,
      timeoutMs,
    }),
  };
}
