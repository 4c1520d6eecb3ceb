// `agentctl auth check FILE`: every secret reference of a workflow, where it is used, and whether its value is
// available here — without reading a secret file's content or running a helper, and without a database.
import { dirname, resolve } from 'node:path';
import type { CommandModule } from 'yargs';
import { AgentctlError, diagnostic, errorMessage, EXIT, isAgentctlError, secretKindLabel, secretReferenceTarget, type CompiledPlan, type Diagnostic, type JsonValue, type SecretReference } from '@agentctl/sdk';
import { compileText } from '../../compiler/compile.js';
import { readBoundedFile } from '../../compiler/source.js';
import { referenceForm } from '../../runner/secrets.js';
import type { Host } from '../../host.js';
import type { Compose } from '../composition.js';
import { handler, type GlobalArgs, packOptions } from '../handler.js';
import { collectInputs, collectVars, type InputArgs } from '../inputs.js';
import { emit, neutralize, palette } from '../output.js';
import { workflowHereOptions } from './document.js';
import { isDirectory } from '../drive.js';

interface CheckArgs extends GlobalArgs, InputArgs {
  file: string;
  workspace?: string;
}

/** One use of a secret reference and whether its value is available. */
export interface SecretCheck {
  where: string;
  form: string | null;
  reference: SecretReference;
  /** The reference as written in YAML flow style, e.g. `{file: /run/secrets/openai}`. */
  text: string;
  present: boolean;
  /** Why it is not present (the resolver's code and message), or null. */
  code: string | null;
  problem: string | null;
}

/** Every secret reference of the plan, used or not: actions, providers (default credentials too), tools, plugin-owned sections, customCa. */
export function secretUses(host: Host, plan: CompiledPlan): { reference: SecretReference; where: string }[] {
  const uses: { reference: SecretReference; where: string }[] = [];
  for (const action of Object.values(plan.actions)) {
    // Only actions a workflow declares are listed here: a body's own (an agent's) are its providers' and tools' below.
    for (const reference of host.declaredActionKind(action.kind)?.secretReferences?.(action.fields) ?? []) uses.push({ reference, where: `spec.actions.${action.name}` });
  }
  for (const provider of Object.values(plan.providers ?? {})) {
    if (provider.credential) uses.push({ reference: provider.credential, where: `spec.providers.${provider.name}.credential` });
    for (const [name, reference] of Object.entries(provider.headers)) uses.push({ reference, where: `spec.providers.${provider.name}.headers.${name}` });
  }
  for (const tool of Object.values(plan.tools ?? {})) tool.secrets.forEach((reference, index) => uses.push({ reference, where: `spec.tools.${tool.name}.secrets[${index}]` }));
  for (const [key, value] of Object.entries(plan.sections ?? {})) uses.push(...(host.specSection(key)?.secretReferences?.(value) ?? []));
  if (plan.policy.network.customCa) uses.push({ reference: plan.policy.network.customCa, where: 'spec.policy.network.customCa' });
  return uses;
}

/** A reference in YAML flow style, as a user would write it. */
export function flow(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(flow).join(', ')}]`;
  if (value !== null && typeof value === 'object') return `{${Object.entries(value).map(([key, item]) => `${key}: ${flow(item as JsonValue)}`).join(', ')}}`;
  return typeof value === 'string' && /^[\w./@:+-]+$/.test(value) ? value : JSON.stringify(value);
}

/** Asks each reference's resolver whether its value is there, in check-only mode: files are statted and helpers looked up; nothing is read or run, so no value exists to leak. */
export async function checkSecrets(host: Host, plan: CompiledPlan, uses: readonly { reference: SecretReference; where: string }[], workspaceRoot: string): Promise<SecretCheck[]> {
  const context = { workspaceRoot, environment: process.env, signal: new AbortController().signal, policy: plan.policy, checkOnly: true };
  const checks: SecretCheck[] = [];
  for (const { reference, where } of uses) {
    const form = referenceForm(reference) ?? null;
    let failure: Diagnostic | undefined;
    if (!form || !host.hasSecretForm(form)) failure = diagnostic('AGENTCTL_E_SECRET_FORM_UNKNOWN', { message: `no secret resolver handles ${flow(reference)}`, path: where });
    else {
      try {
        await host.hooks.secretResolver.for(form).promise(reference, context);
      } catch (error) {
        failure = diagnostic(isAgentctlError(error) ? error.code : 'AGENTCTL_E_SECRET_MISSING', { message: errorMessage(error), path: where });
      }
    }
    checks.push({ where, form, reference, text: flow(reference), present: !failure, code: failure?.code ?? null, problem: failure?.message ?? null });
  }
  return checks;
}

/** A reference's entry in AuthStatus and ProviderCapabilities: the reference's `{kind, reference, availability}`. */
export function credentialStatus(item: SecretCheck) {
  return { kind: item.form === null ? 'unknown' : secretKindLabel(item.form), reference: secretReferenceTarget(item.reference), availability: availability(item) };
}

const check = (compose: Compose): CommandModule<GlobalArgs, CheckArgs> => ({
  command: 'check <file>',
  describe: 'List every secret reference of a workflow and whether it is present here, without reading or running it',
  builder: (yargs) => workflowHereOptions(yargs) as never,
  handler: handler<CheckArgs>(async (argv, output) => {
    const host = compose();
    const { plan } = await compileText(host, argv.file, readBoundedFile(argv.file, 'workflow file'), { inputs: collectInputs(argv), packs: packOptions(argv), vars: collectVars(argv) });
    const workspace = resolve(argv.workspace ?? dirname(resolve(argv.file)));
    if (!isDirectory(workspace)) throw new AgentctlError('AGENTCTL_E_USAGE', `--workspace ${workspace} is not an existing folder`);
    const checks = await checkSecrets(host, plan, secretUses(host, plan), resolve(workspace, plan.policy.workspaceRoot));
    const ready = checks.every((item) => item.present);
    const diagnostics = checks.filter((item) => !item.present).map((item) => diagnostic(item.code!, { message: `${item.where}: ${item.problem}`, path: item.where }));
    emit(output, 'AuthStatus', authEntries(plan, checks), () => table(checks, ready, output.colorStdout), { diagnostics });
    return ready ? 0 : EXIT.remote;
  }),
});

/** How a provider without a credential (the scripted fake) is listed: nothing to check. */
export const NOT_REQUIRED = { kind: 'none', reference: null, availability: 'not_required' } as const;

/**
 * `AuthStatus` data, the reference's array: one entry per provider (by name) with its credential's kind, reference and
 * availability, then every other secret reference with `provider: null`; each entry also says where the reference is
 * written, its form, whether it is present and, if not, why.
 */
function authEntries(plan: CompiledPlan, checks: readonly SecretCheck[]) {
  const credentialOf = credentialStatus;
  const detail = (item: SecretCheck) => ({ where: item.where, form: item.form, text: item.text, present: item.present, code: item.code, problem: item.problem });
  const providers = Object.keys(plan.providers ?? {}).sort().map((name) => {
    const item = checks.find((candidate) => candidate.where === `spec.providers.${name}.credential`);
    return item ? { provider: name, credential: credentialOf(item), ...detail(item) } : { provider: name, credential: NOT_REQUIRED, where: `spec.providers.${name}`, form: null, text: null, present: true, code: null, problem: null };
  });
  const others = checks.filter((item) => !/^spec\.providers\.[^.]+\.credential$/.test(item.where)).map((item) => ({ provider: null, credential: credentialOf(item), ...detail(item) }));
  return [...providers, ...others];
}

/** `present`, `missing` (nothing there) or `missing_or_denied` (there, but refused: outside the roots, not allowed, unreadable). */
function availability(item: SecretCheck): string {
  if (item.present) return 'present';
  return item.code === 'AGENTCTL_E_SECRET_MISSING' ? 'missing' : 'missing_or_denied';
}

function table(checks: readonly SecretCheck[], ready: boolean, color: boolean): string {
  const colors = palette(color);
  if (checks.length === 0) return 'no secret references';
  const rows = [['WHERE', 'FORM', 'REFERENCE', 'PRESENT'], ...checks.map((item) => [item.where, item.form ?? '?', item.text, item.present ? 'yes' : `no: ${item.code} ${item.problem}`])].map((row) => row.map(neutralize));
  const widths = [0, 1, 2].map((column) => Math.max(...rows.map((row) => row[column]!.length)));
  const lines = rows.map((row) => row.map((cell, column) => (column < 3 ? cell.padEnd(widths[column]!) : cell)).join('  '));
  lines.push(ready ? colors.green('all present') : colors.red(`${checks.filter((item) => !item.present).length} of ${checks.length} not present`));
  return lines.join('\n');
}

export const authCommand = (compose: Compose): CommandModule<GlobalArgs, GlobalArgs> => ({
  command: 'auth',
  describe: 'Check the secret references a workflow needs',
  builder: (yargs) => yargs.command(check(compose)).demandCommand(1, 'name an auth subcommand: check') as never,
  handler: () => undefined,
});
