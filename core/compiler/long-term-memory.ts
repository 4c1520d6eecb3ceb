// `spec.memory.longTerm` checked against the host: a registered store, an embedding this version computes.
import type { CompiledLongTermMemory } from '@agentctl/sdk';
import type { Host } from '../host.js';
import type { Envelope } from './envelope.js';
import { suggestion, type Report } from './checks.js';
import type { PathSegment } from './document-path.js';

/** The compiled settings, or undefined when the workflow declares no long-term memory. */
export function compileLongTermMemory(host: Host, envelope: Envelope, report: Report): CompiledLongTermMemory | undefined {
  const declared = envelope.spec.memory?.longTerm;
  if (!declared) return undefined;
  const path: PathSegment[] = ['spec', 'memory', 'longTerm'];
  if (!host.memoryStore(declared.provider)) {
    report('AGENTCTL_E_MEMORY_PROVIDER_UNKNOWN', [...path, 'provider'], `long-term memory provider "${declared.provider}" is not registered by any plugin`, suggestion(declared.provider, host.memoryStores(), 'registered memory stores'));
  }
  const embedding = declared.embedding;
  if (embedding.provider !== 'local_hash') {
    const entry = envelope.spec.providers?.[embedding.provider];
    const why = entry ? `provider entry ${embedding.provider} (kind ${entry.kind})` : `"${embedding.provider}", which names no spec.providers entry`;
    report('AGENTCTL_E_MEMORY_EMBEDDING_UNSUPPORTED', [...path, 'embedding', 'provider'], `long-term memory embedding ${why} cannot be computed by this version: only local_hash embeddings are available`, 'use embedding: { provider: local_hash, dimensions: 8..4096 }');
  }
  return {
    provider: declared.provider,
    namespace: declared.namespace,
    retentionDays: declared.retentionDays ?? null,
    embedding: { provider: embedding.provider, model: embedding.model ?? null, dimensions: embedding.dimensions },
  };
}
