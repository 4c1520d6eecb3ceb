// Preflight of what the executing tasks will reach, before any run state exists: the run's network client (customCa
// resolved and checked) and every URL their bodies and plugin-owned sections name, judged by the network policy and
// resolved. Nothing is sent. Also the rule that an unresolvable provider credential is a missing credential (exit 6).
import { diagnostic, errorMessage, isAgentctlError, type CompiledPlan, type CompiledTask, type Diagnostic, type NetworkSettings, type SectionUrl } from '@agentctl/sdk';
import type { SecretLookup } from '../hooks.js';
import type { Host } from '../host.js';
import type { SecretVault } from './secrets.js';
import { bodyOf } from './task-body.js';

/**
 * A provider credential that cannot be resolved is a missing credential (exit 6), whatever the resolver refused: the
 * diagnostic gets that code, and the resolver's own code stays visible at the end of its message.
 */
export function asCredentialProblem(problem: Diagnostic): Diagnostic {
  if (!/^spec\.providers\.[^.]+\.credential$/.test(problem.path ?? '') || !problem.code.startsWith('AGENTCTL_E_SECRET_')) return problem;
  return { ...problem, code: 'AGENTCTL_E_PROVIDER_CREDENTIAL_MISSING', message: `${problem.message} [${problem.code}]`, help: `set the credential of ${problem.path!.split('.')[2]} before the run; nothing was created` };
}

/**
 * Builds the run's network client (for task bodies that reach URLs, e.g. an agent's provider, and action kinds that
 * use the network) and checks every URL the executing tasks' bodies name, and every URL of the sections they read.
 */
export async function networkProblems(host: Host, plan: CompiledPlan, vault: SecretVault, executing: readonly CompiledTask[], context: SecretLookup, sectionUrls: readonly SectionUrl[] = []): Promise<Diagnostic[]> {
  const urls = new Map<string, string>();
  const lookup = { provider: (kind: string) => host.provider(kind) };
  for (const task of executing) {
    for (const { url, where } of bodyOf(host, task.kind).urls?.(plan.actions[task.action]!, lookup) ?? []) urls.set(url, where);
  }
  // URLs of the plugin-owned sections the executing kinds read (an MCP server's), judged like a provider's.
  for (const { url, where } of sectionUrls) if (!urls.has(url)) urls.set(url, where);
  // Action kinds that make HTTP requests get the same client, built here so a bad customCa fails before the run.
  const networked = executing.find((task) => host.actionKind(task.kind)?.usesNetwork === true);
  if (urls.size === 0 && !networked) return [];
  const factory = host.networkClientFactory();
  const needs = urls.size > 0 ? `${[...urls.keys()][0]} must be reached` : `task ${networked!.id} (${networked!.kind}) makes HTTP requests`;
  if (!factory) return [diagnostic('AGENTCTL_E_NETWORK_UNAVAILABLE', { message: `no plugin provides the network client, and ${needs}` })];
  const policy = plan.policy.network;
  let customCa: string | undefined;
  if (policy.customCa) {
    const problems = await vault.resolve(host, [{ reference: policy.customCa, where: 'spec.policy.network.customCa' }], context);
    if (problems.length > 0) return problems;
    customCa = vault.forTask().value(policy.customCa);
  }
  const settings: NetworkSettings = {
    allowlist: plan.policy.networkAllowlist,
    allowedSchemes: policy.allowedSchemes,
    allowedPorts: policy.allowedPorts,
    connectTimeoutSeconds: policy.connectTimeoutSeconds,
    maxResponseBytes: policy.maxResponseBytes,
    allowPrivate: policy.allowPrivate,
    allowProxy: policy.allowProxy,
    ...(customCa === undefined ? {} : { customCa }),
  };
  try {
    vault.network = factory(settings);
  } catch (error) {
    return [withPath(error, 'spec.policy.network.customCa')];
  }
  const problems: Diagnostic[] = [];
  for (const [url, where] of urls) {
    try {
      await vault.network.check(url, context.signal);
    } catch (error) {
      problems.push(withPath(error, where));
    }
  }
  return problems;
}

function withPath(error: unknown, path: string): Diagnostic {
  if (isAgentctlError(error)) return { ...(error.diagnostics[0] ?? diagnostic(error.code, { message: error.message })), path };
  return diagnostic('AGENTCTL_E_PLUGIN_FAILED', { message: errorMessage(error), path });
}
