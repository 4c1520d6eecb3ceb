// `agentctl doctor FILE`: the local prerequisites of a workflow, as the reference's DoctorResult lists them (credentials,
// working folders, executables, interpreter scripts, engines and images), and the checks a run makes before it records
// anything, without running anything and without a database.
import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { CommandModule } from 'yargs';
import { AgentctlError, EXIT, type IsolationHostReport, type JsonObject } from '@agentctl/sdk';
import { compileText } from '../../compiler/compile.js';
import { readBoundedFile } from '../../compiler/source.js';
import { preflightProblems } from '../../runner/run.js';
import { SecretVault } from '../../runner/secrets.js';
import type { Compose } from '../composition.js';
import { handler, type GlobalArgs, packOptions } from '../handler.js';
import { collectInputs, collectVars, type InputArgs } from '../inputs.js';
import { emit, neutralize, palette } from '../output.js';
import { workflowHereOptions } from './document.js';
import { isDirectory } from '../drive.js';
import { doctorChecks, type DoctorProcess } from './doctor-checks.js';
import { previewPolicy } from '../../policy-preview.js';
import { planDocument } from '../../plan-document.js';

/** What `ready` does and does not establish: said in every result, as the reference does. */
const SCOPE = 'checked local prerequisites only; ready does not establish workflow execution readiness. Provider access, executable formats, helper dependencies and secret helper results require separate validation';

interface DoctorArgs extends GlobalArgs, InputArgs {
  file: string;
  workspace?: string;
}

/** Where one process action will run, as its isolation mode found it. */
type Placement = DoctorProcess;

export const doctorCommand = (compose: Compose): CommandModule<GlobalArgs, DoctorArgs> => ({
  command: 'doctor <file>',
  describe: 'Check that a workflow could start here (secrets, commands, container engines and images) without running it',
  builder: (yargs) => workflowHereOptions(yargs) as never,
  handler: handler<DoctorArgs>(async (argv, output) => {
    const host = compose();
    const inputs = collectInputs(argv);
    const { plan } = await compileText(host, argv.file, readBoundedFile(argv.file, 'workflow file'), { inputs, packs: packOptions(argv), vars: collectVars(argv) });
    const workspace = resolve(argv.workspace ?? dirname(resolve(argv.file)));
    if (!isDirectory(workspace)) throw new AgentctlError('AGENTCTL_E_USAGE', `--workspace ${workspace} is not an existing folder`);
    const request = { host, plan, workspaceRoot: resolve(workspace, plan.policy.workspaceRoot), signal: new AbortController().signal, environment: process.env };
    // Preflight never records a digest, so the vault never needs the database's key.
    const vault = new SecretVault(() => {
      throw new AgentctlError('AGENTCTL_E_INTERNAL', 'doctor opens no database');
    });
    const problems = (await preflightProblems(request, vault, plan.tasks)).map((item) => ({ ...item, severity: 'error' as const }));
    const placements = await placementsOf(request);
    const isolation = hostReports(host, placements);
    const policy = previewPolicy(host, plan, request.workspaceRoot);
    const { checks, unverified } = await doctorChecks({ host, plan, workspaceRoot: request.workspaceRoot, policy }, placements);
    const ready = problems.length === 0 && checks.every((item) => item.available);
    const processes = placements.map(({ cwd: _cwd, args: _args, env: _env, ...item }) => item);
    const data = { ready, workflow: plan.name, planDigest: planDocument(host, plan).planDigest, checks, unverified, scope: SCOPE, file: argv.file, processes, isolation };
    emit(
      output,
      'DoctorResult',
      data,
      () => {
        const colors = palette(output.colorStdout);
        const lines = [`${ready ? colors.green('ready') : colors.red('not ready')}: ${plan.name} (checked local prerequisites only; workflow execution readiness unverified)`];
        for (const item of [...checks, ...unverified]) lines.push(`${item.check}: ${item.status} — ${neutralize(item.detail)}`);
        for (const item of placements) {
          const where = item.placement ? Object.entries(item.placement).map(([key, value]) => `${key} ${typeof value === 'string' ? value : JSON.stringify(value)}`) : ['not available'];
          lines.push(`  process ${item.action} [${item.isolation}]: ${item.executable ?? `${item.command} (not found)`}${where.length > 0 ? ` — ${where.join(', ')}` : ''}`);
        }
        for (const item of isolation) {
          lines.push(`  isolation ${item.mode}: ${item.endsEveryDescendant ? 'every descendant ends with its task' : colors.red('descendants can outlive their task')} — ${item.detail}`);
        }
        for (const problem of problems) lines.push(`  ${problem.code}: ${neutralize(problem.message)}`, `    ${neutralize(problem.help ?? '')}`);
        return lines.join('\n');
      },
      { diagnostics: problems },
    );
    return ready ? 0 : EXIT.remote;
  }),
});

/** What each isolation mode the plan uses can guarantee on this machine, for the modes that say. */
function hostReports(host: ReturnType<Compose>, placements: readonly Placement[]): (IsolationHostReport & { mode: string })[] {
  const modes = [...new Set(placements.map((item) => item.isolation))].sort();
  return modes.flatMap((mode) => {
    const report = host.isolationMode(mode)?.hostReport?.();
    return report ? [{ mode, ...report }] : [];
  });
}

/** Every process action of the plan, and where its isolation mode says it would run. */
async function placementsOf(request: { host: ReturnType<Compose>; plan: Parameters<typeof preflightProblems>[0]['plan']; signal: AbortSignal }): Promise<Placement[]> {
  const { host, plan, signal } = request;
  const placements: Placement[] = [];
  for (const action of Object.values(plan.actions)) {
    const tasks = plan.tasks.filter((task) => task.action === action.name).map((task) => task.id);
    const process = host.actionKind(action.kind)?.describe?.(action.fields, { process: host.process, defaultTimeoutSeconds: plan.runtime.defaultTimeoutSeconds }).process;
    if (!process || tasks.length === 0) continue;
    let placement: JsonObject | null = null;
    try {
      placement = await host.process.prepare(process.isolation, process.options, signal);
    } catch {
      // Preflight has reported why, with its code and help.
      placement = null;
    }
    const env = (action.fields as { env?: unknown }).env;
    const declared = env !== null && typeof env === 'object' && !Array.isArray(env) ? (env as Record<string, unknown>) : {};
    placements.push({ action: action.name, tasks, isolation: process.isolation, command: process.command, executable: process.executable, placement, cwd: process.cwd, args: process.args, env: declared });
  }
  return placements;
}
