// `spec.memory.longTerm` checked against the host: a registered store, and an embedding this host computes
// (`local_hash`, or a `spec.providers` entry whose kind embeds, with an explicit model).
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
  if (embedding.provider !== 'local_hash') checkProviderEmbedding(host, envelope, embedding, [...path, 'embedding'], report);
  return {
    provider: declared.provider,
    namespace: declared.namespace,
    retentionDays: declared.retentionDays ?? null,
    embedding: { provider: embedding.provider, model: embedding.model ?? null, dimensions: embedding.dimensions },
  };
}

/** An embedding through a provider entry: the entry exists, its kind can embed, and the model is named. */
function checkProviderEmbedding(host: Host, envelope: Envelope, embedding: { provider: string; model?: string | undefined }, path: PathSegment[], report: Report): void {
  const providers = envelope.spec.providers ?? {};
  const entry = Object.hasOwn(providers, embedding.provider) ? providers[embedding.provider] : undefined;
  if (!entry) {
    const names = ['local_hash', ...Object.keys(providers)];
    report('AGENTCTL_E_MEMORY_EMBEDDING_UNSUPPORTED', [...path, 'provider'], `long-term memory embedding provider "${embedding.provider}" is neither local_hash nor a spec.providers entry`, suggestion(embedding.provider, names, 'embedding providers'));
    return;
  }
  const kind = host.provider(entry.kind);
  // An unregistered kind is already reported at spec.providers; only a kind that cannot embed is reported here.
  if (kind && !kind.embed) {
    const embedders = host.providers().filter((name) => host.provider(name)?.embed !== undefined);
    const kinds = embedders.length > 0 ? `a kind that does (${embedders.join(', ')})` : 'a kind that does';
    report('AGENTCTL_E_MEMORY_EMBEDDING_UNSUPPORTED', [...path, 'provider'], `long-term memory embedding through provider entry ${embedding.provider}: provider kind ${entry.kind} does not compute embeddings`, `name an entry of ${kinds}, or use embedding: { provider: local_hash }`);
  }
  if (embedding.model === undefined) {
    report('AGENTCTL_E_MEMORY_EMBEDDING_UNSUPPORTED', [...path, 'model'], `long-term memory embedding through provider entry ${embedding.provider} names no model`, 'set embedding.model to the embedding model, e.g. text-embedding-3-small');
  }
}
