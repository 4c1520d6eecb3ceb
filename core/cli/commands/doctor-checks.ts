// The prerequisite checks `doctor` lists, by the reference's names: `provider:NAME` (its credential),
// `process:ACTION:cwd|command|env:NAME|script` for a process that runs on this host, `MODE:ACTION` for one an isolation
// mode places elsewhere (an engine and its image). Nothing is run and no secret value, file content or helper output
// is read: a file is judged by its metadata, a credential by the resolver's check-only mode.
import { constants, accessSync, statSync } from 'node:fs';
import { basename, extname, isAbsolute, resolve } from 'node:path';
import { errorMessage, isAgentctlError, type CompiledPlan, type JsonObject, type SecretReference } from '@agentctl/sdk';
import type { Host } from '../../host.js';
import type { TaskPolicyView } from '../../policy-preview.js';
import { referenceForm } from '../../runner/secrets.js';
import { embeddingEntry } from '../../runner/memory-embedding.js';

export interface DoctorCheck {
  check: string;
  available: boolean;
  status: string;
  detail: string;
  /** A credential's reference as written (never its value). */
  source?: string;
  /** For a process placed by an isolation mode: the engine it found, or null. */
  engine?: string | null;
}

/** What doctor could not verify without running something. */
export interface DoctorUnverified {
  check: string;
  status: 'unchecked';
  detail: string;
}

/** A process action as doctor sees it: where it would run, and (for an isolated one) what its mode's prepare found. */
export interface DoctorProcess {
  action: string;
  tasks: string[];
  isolation: string;
  command: string;
  executable: string | null;
  placement: JsonObject | null;
  cwd: string;
  args: readonly string[];
  /** The action fields' environment map: variable name → literal value or secret reference. */
  env: Record<string, unknown>;
}

export interface DoctorContext {
  host: Host;
  plan: CompiledPlan;
  workspaceRoot: string;
  policy: ReadonlyMap<string, TaskPolicyView>;
}

/** Interpreters whose first argument, when it is not an option, is a script file doctor can look for. */
const INTERPRETERS = new Set(['python', 'python3', 'node', 'ruby', 'perl', 'sh', 'bash', 'dash', 'zsh']);

export async function doctorChecks(context: DoctorContext, processes: readonly DoctorProcess[]): Promise<{ checks: DoctorCheck[]; unverified: DoctorUnverified[] }> {
  const checks: DoctorCheck[] = [];
  const unverified: DoctorUnverified[] = [];
  const { host, plan } = context;
  // Used: by an agent, or by long-term memory that embeds through the entry.
  const used = new Set([...Object.values(plan.agents ?? {}).map((agent) => agent.provider), ...(embeddingEntry(plan) ? [embeddingEntry(plan)!.name] : [])]);
  for (const provider of Object.values(plan.providers ?? {})) {
    // A provider that needs no credential (the scripted fake) has nothing to check.
    if (!used.has(provider.name) || !provider.credential) continue;
    checks.push({ check: `provider:${provider.name}`, ...(await credential(context, provider.credential)) });
  }
  for (const item of processes) {
    // A mode with `prepare` places the process elsewhere (an engine): its answer is the check.
    if (host.isolationMode(item.isolation)?.prepare) {
      const engine = typeof item.placement?.engine === 'string' ? item.placement.engine : null;
      checks.push({
        check: `${item.isolation}:${item.action}`,
        available: item.placement !== null,
        status: item.placement !== null ? 'present' : 'unavailable',
        engine,
        detail: item.placement !== null ? 'the engine answered and holds the pinned image' : 'start the configured engine and load the pinned image (the diagnostics say which is missing)',
      });
      continue;
    }
    hostProcessChecks(context, item, checks, unverified);
    for (const [name, value] of Object.entries(item.env)) {
      const check = `process:${item.action}:env:${name}`;
      if (!plan.policy.environmentAllowlist.includes(name)) checks.push({ check, available: false, status: 'denied', detail: 'the variable is not allowed by environmentAllowlist' });
      else if (value !== null && typeof value === 'object') checks.push({ check, ...(await credential(context, value as SecretReference)) });
      else checks.push({ check, available: true, status: 'present', detail: 'a literal value written in the workflow' });
    }
  }
  return { checks, unverified };
}

function hostProcessChecks(context: DoctorContext, item: DoctorProcess, checks: DoctorCheck[], unverified: DoctorUnverified[]): void {
  const name = item.action;
  const cwd = resolve(context.workspaceRoot, item.cwd);
  if (!isFolder(cwd)) {
    checks.push({ check: `process:${name}:cwd`, available: false, status: 'missing_or_denied', detail: 'declare an existing working directory inside the workspace' });
    return;
  }
  const denial = item.tasks.map((task) => context.policy.get(task)).find((view) => view?.decision === 'deny' && view.operations.some((operation) => operation.startsWith('process.')));
  const explicit = isAbsolute(item.command) || item.command.includes('/');
  let status: DoctorCheck;
  if (denial) status = { check: '', available: false, status: 'denied', detail: denial.message ?? 'policy denies the command' };
  else if (explicit) {
    const present = isExecutableFile(resolve(cwd, item.command));
    status = present
      ? { check: '', available: true, status: 'present', detail: 'a regular file with executable permission; its format, loader and dependencies are not verified' }
      : { check: '', available: false, status: 'missing_or_not_executable', detail: 'install the executable, or correct its path and executable permission' };
  } else if (item.executable) status = { check: '', available: true, status: 'present', detail: `found as ${item.executable}, where the isolation mode looks at run time` };
  else status = { check: '', available: false, status: 'unchecked', detail: 'the bare command is not found where the isolation mode looks at run time; give an explicit executable path or install it there' };
  checks.push({ ...status, check: `process:${name}:command` });
  const script = interpreterScript(item.command, item.args);
  if (script !== undefined) {
    const present = isFile(resolve(cwd, script));
    checks.push({
      check: `process:${name}:script`,
      available: present,
      status: present ? 'present' : 'missing_or_not_file',
      detail: "the interpreter's script argument, looked for as a regular file in the action's working folder; its content, imports and child commands are not inspected",
    });
  }
  unverified.push({
    check: `process:${name}:dependencies`,
    status: 'unchecked',
    detail: 'nothing was executed: the executable format, interpreter or loader, modules, command strings, further argument paths and helper-internal dependencies are unverified; validate them separately before relying on a run',
  });
}

/** Whether a credential reference resolves here, asked of its resolver in check-only mode (no value read, no helper run). */
async function credential(context: DoctorContext, reference: SecretReference): Promise<Omit<DoctorCheck, 'check'>> {
  const form = referenceForm(reference);
  const source = `{${form ?? '?'}: ${JSON.stringify(Object.values(reference)[0])}}`;
  if (!form || !context.host.hasSecretForm(form)) return { available: false, status: 'unknown_form', source, detail: 'no secret resolver handles this reference' };
  const resolverContext = { workspaceRoot: context.workspaceRoot, environment: process.env, signal: new AbortController().signal, policy: context.plan.policy, checkOnly: true };
  try {
    await context.host.hooks.secretResolver.for(form).promise(reference, resolverContext);
    return { available: true, status: 'present', source, detail: 'checked without reading or showing its value (a helper is looked up and allowed, not run)' };
  } catch (error) {
    const missing = isAgentctlError(error) && error.code === 'AGENTCTL_E_SECRET_MISSING';
    return { available: false, status: missing ? 'missing' : 'missing_or_denied', source, detail: errorMessage(error) };
  }
}

function interpreterScript(command: string, args: readonly string[]): string | undefined {
  const name = basename(command, extname(command)).toLowerCase();
  if (!INTERPRETERS.has(name)) return undefined;
  const first = args[0];
  return first !== undefined && first !== '' && !first.startsWith('-') ? first : undefined;
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
