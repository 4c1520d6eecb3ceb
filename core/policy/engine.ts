// The policy engine. The core's own checks run as one fixed phase (tools, process, paths, then approval) that no
// plugin can skip or reorder; plugin taps on the `policy` hook vote afterwards and can only tighten the outcome.
import { existsSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { diagnostic, type Diagnostic, type EffectClass, type PolicyRequest, type PolicyVerdict, type PolicyVote } from '@agentctl/sdk';
import type { Hooks, PolicyBallot } from '../hooks.js';
import { checkWorkingDirectory } from './working-directory.js';

const MUTATING: ReadonlySet<EffectClass> = new Set(['workspace_mutate', 'external_mutate', 'process_execution', 'network', 'remote_agent']);

const deny = (code: Diagnostic['code'], message: string, help?: string): PolicyVerdict => ({
  decision: 'deny',
  diagnostic: diagnostic(code, { message, ...(help ? { help } : {}) }),
});

/** The core phase, in order: the first denial wins; otherwise the approval decision. */
const CORE_CHECKS: readonly ((request: PolicyRequest) => PolicyVerdict | undefined)[] = [checkTools, checkProcess, checkPaths, checkWorkingDirectory];

export function corePolicy(request: PolicyRequest): PolicyVerdict {
  for (const check of CORE_CHECKS) {
    const verdict = check(request);
    if (verdict) return verdict;
  }
  return decideApproval(request);
}

const RESTRICTIVENESS = { allow: 0, needs_approval: 1, deny: 2 } as const;

/**
 * The final decision about one effect: the core phase first (a denial there ends it), then every plugin tap votes.
 * The most restrictive answer wins; among equals, the first.
 */
export async function decidePolicy(hooks: Hooks, request: PolicyRequest, waiveApproval = false): Promise<PolicyVerdict> {
  const decided = corePolicy(request);
  if (decided.decision === 'deny') return decided;
  const core: PolicyVerdict = waiveApproval ? { decision: 'allow', reason: 'the tool contract declares approval: never' } : decided;
  // No plugin votes: the core's answer stands.
  if (!hooks.policy.isUsed()) return core;
  const votes: PolicyVote[] = [];
  const ballot: PolicyBallot = { cast: (_plugin, vote) => void votes.push(vote) };
  await hooks.policy.promise(request, ballot);
  return votes.reduce<PolicyVerdict>((winner, vote) => (RESTRICTIVENESS[vote.decision] > RESTRICTIVENESS[winner.decision] ? vote : winner), core);
}

/** A model turn (tool `model.request`) is governed by spec.policy.providers; toolsAllow lists what models may call. */
const MODEL_TURN = 'model.request';

function checkTools({ access, policy }: PolicyRequest): PolicyVerdict | undefined {
  if (policy.toolsDeny.includes(access.tool)) return deny('AGENTCTL_E_POLICY_TOOL_DENIED', `tool ${access.tool} is in policy.toolsDeny`);
  if (policy.toolsAllow.length > 0 && access.tool !== MODEL_TURN && !policy.toolsAllow.includes(access.tool)) {
    return deny('AGENTCTL_E_POLICY_TOOL_DENIED', `tool ${access.tool} is not in policy.toolsAllow`, `allowed tools: ${policy.toolsAllow.join(', ')}`);
  }
  return undefined;
}

function checkProcess({ access, policy, workspaceRoot, statePaths }: PolicyRequest): PolicyVerdict | undefined {
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
  return cwdProblem ? deny('AGENTCTL_E_POLICY_PATH_ESCAPE', cwdProblem) : stateDenial(process.cwd, workspaceRoot, statePaths, 'cwd');
}

function checkPaths({ access, policy, workspaceRoot, statePaths }: PolicyRequest): PolicyVerdict | undefined {
  for (const path of access.reads ?? []) {
    const problem = pathProblem(path, workspaceRoot, 'read path');
    if (problem) return deny('AGENTCTL_E_POLICY_PATH_ESCAPE', problem);
    const state = stateDenial(path, workspaceRoot, statePaths, 'read path');
    if (state) return state;
  }
  for (const path of access.writes ?? []) {
    const problem = pathProblem(path, workspaceRoot, 'write path');
    if (problem) return deny('AGENTCTL_E_POLICY_PATH_ESCAPE', problem);
    const state = stateDenial(path, workspaceRoot, statePaths, 'write path');
    if (state) return state;
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
  return { decision: 'needs_approval', reason: `policy.approval is ${policy.approval} and ${operation} is ${profile.effectClass} (risk ${profile.risk})` };
}

/**
 * A denial when `path` resolves (symlinks followed) to a state path or below one, or is a hard link to a state file.
 * Checked before writableRoots: the state stays agentctl's even inside a writable root.
 */
function stateDenial(path: string, workspaceRoot: string, statePaths: readonly string[], what: string): PolicyVerdict | undefined {
  const target = canonical(resolve(workspaceRoot, path));
  const state = statePaths.find((statePath) => isWithin(target, statePath) || sameFile(target, statePath));
  if (state === undefined) return undefined;
  return deny(
    'AGENTCTL_E_POLICY_STATE_PATH',
    `${what} "${path}" resolves to ${target}, agentctl's own state (${state}): the database, its -wal/-shm/-journal files and the artifact store are never read or written by a task`,
    'keep the database (--db) outside the workspace, or at least outside writableRoots; no policy setting lets a task use these paths',
  );
}

/** True when both paths exist and name the same file (a hard link); folders are covered by isWithin. */
function sameFile(a: string, b: string): boolean {
  try {
    const left = statSync(a);
    if (!left.isFile()) return false;
    const right = statSync(b);
    return left.ino === right.ino && left.dev === right.dev;
  } catch {
    return false;
  }
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
