// The policy engine: security checks tapped on the `policy` hook in named stages, approval last.
import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { EffectClass, PolicyRequest, PolicyVerdict } from '../contracts.js';
import { diagnostic, type Diagnostic } from '../errors.js';
import type { Hooks } from '../hooks.js';

/** Order of the checks: every deny comes before the approval decision. */
export const POLICY_STAGES = Object.freeze({ tools: -400, process: -300, paths: -200, approval: 1000 });

const MUTATING: ReadonlySet<EffectClass> = new Set(['workspace_mutate', 'external_mutate', 'process_execution', 'network']);

const deny = (code: Diagnostic['code'], message: string, help?: string): PolicyVerdict => ({
  decision: 'deny',
  diagnostic: diagnostic(code, { message, ...(help ? { help } : {}) }),
});

export function installPolicyEngine(hooks: Hooks): void {
  hooks.policy.tapPromise({ name: 'agentctl:policy:tools', stage: POLICY_STAGES.tools }, async (request) => checkTools(request));
  hooks.policy.tapPromise({ name: 'agentctl:policy:process', stage: POLICY_STAGES.process }, async (request) => checkProcess(request));
  hooks.policy.tapPromise({ name: 'agentctl:policy:paths', stage: POLICY_STAGES.paths }, async (request) => checkPaths(request));
  hooks.policy.tapPromise({ name: 'agentctl:policy:approval', stage: POLICY_STAGES.approval }, async (request) => decideApproval(request));
}

function checkTools({ access, policy }: PolicyRequest): PolicyVerdict | undefined {
  if (policy.toolsDeny.includes(access.tool)) return deny('AGENTCTL_E_POLICY_TOOL_DENIED', `tool ${access.tool} is in policy.toolsDeny`);
  if (policy.toolsAllow.length > 0 && !policy.toolsAllow.includes(access.tool)) {
    return deny('AGENTCTL_E_POLICY_TOOL_DENIED', `tool ${access.tool} is not in policy.toolsAllow`, `allowed tools: ${policy.toolsAllow.join(', ')}`);
  }
  return undefined;
}

function checkProcess({ access, policy, workspaceRoot }: PolicyRequest): PolicyVerdict | undefined {
  const process = access.process;
  if (!process) return undefined;
  const name = basename(process.executable);
  if (!policy.processAllowlist.includes(name)) {
    return deny('AGENTCTL_E_POLICY_PROCESS_DENIED', `executable ${process.executable} (basename "${name}") is not in policy.processAllowlist`, `add "${name}" to spec.policy.processAllowlist if it may run`);
  }
  const denied = process.environment.filter((entry) => !policy.environmentAllowlist.includes(entry));
  if (denied.length > 0) {
    return deny('AGENTCTL_E_POLICY_ENV_DENIED', `environment ${denied.join(', ')} not in policy.environmentAllowlist`, 'list each env name the action sets in spec.policy.environmentAllowlist');
  }
  const cwdProblem = pathProblem(process.cwd, workspaceRoot, 'cwd');
  return cwdProblem ? deny('AGENTCTL_E_POLICY_PATH_ESCAPE', cwdProblem) : undefined;
}

function checkPaths({ access, policy, workspaceRoot }: PolicyRequest): PolicyVerdict | undefined {
  for (const path of access.reads ?? []) {
    const problem = pathProblem(path, workspaceRoot, 'read path');
    if (problem) return deny('AGENTCTL_E_POLICY_PATH_ESCAPE', problem);
  }
  for (const path of access.writes ?? []) {
    const problem = pathProblem(path, workspaceRoot, 'write path');
    if (problem) return deny('AGENTCTL_E_POLICY_PATH_ESCAPE', problem);
    const target = canonical(resolve(workspaceRoot, path));
    const allowed = policy.writableRoots.some((root) => isWithin(target, canonical(resolve(workspaceRoot, root))));
    if (!allowed) {
      const roots = policy.writableRoots.length > 0 ? policy.writableRoots.join(', ') : '(none: writes are disabled)';
      return deny('AGENTCTL_E_POLICY_NOT_WRITABLE', `write path "${path}" is not below a writable root`, `writable roots: ${roots}`);
    }
  }
  return undefined;
}

function decideApproval({ policy, profile, operation }: PolicyRequest): PolicyVerdict {
  const needed =
    policy.approval === 'always' ||
    (policy.approval === 'mutations' && MUTATING.has(profile.effectClass)) ||
    (policy.approval === 'high_risk' && (profile.risk === 'high' || profile.risk === 'critical'));
  if (!needed) return { decision: 'allow' };
  return { decision: 'approval', reason: `policy.approval is ${policy.approval} and ${operation} is ${profile.effectClass} (risk ${profile.risk})` };
}

/** Why a workspace-relative path is refused, or undefined when it stays inside the workspace. */
export function pathProblem(path: string, workspaceRoot: string, what: string): string | undefined {
  if (path.split(/[\\/]/).includes('..')) return `${what} "${path}" contains a ".." component`;
  const root = canonical(workspaceRoot);
  const target = canonical(resolve(workspaceRoot, path));
  if (!isWithin(target, root)) {
    return isAbsolute(path) ? `${what} "${path}" is outside the workspace root` : `${what} "${path}" resolves (following symlinks) to ${target}, outside the workspace root`;
  }
  return undefined;
}

/** Real path of the longest existing prefix, with the rest appended: symlinks anywhere on the way are followed. */
export function canonical(path: string): string {
  let existing = path;
  const rest: string[] = [];
  while (!existsSync(existing)) {
    const parent = dirname(existing);
    if (parent === existing) break;
    rest.unshift(basename(existing));
    existing = parent;
  }
  let real: string;
  try {
    real = realpathSync(existing);
  } catch {
    real = existing;
  }
  return rest.length === 0 ? real : join(real, ...rest);
}

export function isWithin(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}
