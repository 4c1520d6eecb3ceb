// `memory reindex --workflow FILE`: the embedder a workflow's `spec.memory.longTerm.embedding` names, for a command that
// has no run. A provider entry is made ready as a run's preflight would: its credential and headers resolved, the
// URLs its kind reaches judged by the workflow's network policy, before anything is re-embedded.
import { dirname, resolve } from 'node:path';
import { AgentctlError, type MemoryEmbedder } from '@agentctl/sdk';
import { compileText } from '../compiler/compile.js';
import { readBoundedFile } from '../compiler/source.js';
import { embedderFor } from '../memory/service.js';
import { embeddingSecrets, embeddingUrls, memoryProvider } from '../runner/memory-embedding.js';
import { asCredentialProblem, networkProblems } from '../runner/network-preflight.js';
import { SecretVault } from '../runner/secrets.js';
import type { Compose } from './composition.js';

/** The embedder of the workflow at `file`, and the redaction of the secret values it resolved (for messages). */
export async function workflowEmbedder(compose: Compose, file: string, packs: { locked: boolean; offline: boolean }, signal: AbortSignal): Promise<{ embedder: MemoryEmbedder; redact: (text: string) => string }> {
  const host = compose();
  const { plan } = await compileText(host, file, readBoundedFile(file, 'workflow file'), { packs });
  const settings = plan.longTermMemory;
  if (!settings) throw new AgentctlError('AGENTCTL_E_USAGE', `--workflow ${file} declares no spec.memory.longTerm, so it names no embedding`, { help: 'name a workflow whose spec.memory.longTerm.embedding is the one to re-embed with' });
  // Nothing here records a digest, so the vault never needs a database key.
  const vault = new SecretVault(() => {
    throw new AgentctlError('AGENTCTL_E_INTERNAL', 'memory reindex records no secret digest');
  });
  const context = { workspaceRoot: resolve(dirname(resolve(file)), plan.policy.workspaceRoot), environment: process.env, signal, policy: plan.policy };
  const problems = (await vault.resolve(host, embeddingSecrets(plan), context)).map(asCredentialProblem);
  const urls = embeddingUrls(host, plan);
  if (problems.length === 0 && urls.length > 0) problems.push(...(await networkProblems(host, plan, vault, [], context, urls)));
  const redact = vault.redactor.redact;
  if (problems.length > 0) {
    const diagnostics = problems.map((item) => ({ ...item, message: redact(item.message) }));
    throw new AgentctlError(diagnostics[0]!.code, `the embedding of ${file} cannot be used: ${diagnostics[0]!.message}`, { diagnostics, exitCode: host.errorCodes.exitCodeFor(diagnostics[0]!) });
  }
  const provider = memoryProvider(host, plan, vault.forTask(), vault.network, signal, plan.runtime.defaultTimeoutSeconds * 1000);
  return { embedder: embedderFor(settings, provider), redact };
}
