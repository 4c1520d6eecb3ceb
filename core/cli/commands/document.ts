// check, plan and schema: commands that read a workflow (or the format) and never touch the database.
import { statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { CommandModule } from 'yargs';
import { AgentctlError, EXIT, type CompiledPlan, type CompiledTask, type MountSource, type PlanDocument } from '@agentctl/sdk';
import { compileText } from '../../compiler/compile.js';
import { readBoundedFile, readBoundedStdin, STDIN_ARGUMENT, STDIN_NAME, type SourceDocument } from '../../compiler/source.js';
import { policyDiagnostics, previewPolicy } from '../../policy-preview.js';
import { statePaths } from '../../store/state-paths.js';
import { DEFAULT_DB } from '../database-option.js';
import { describePlan } from '../../plan-view.js';
import { planDocument } from '../../plan-document.js';
import { checkInstructionFiles } from '../../compiler/instructions-check.js';
import { closest } from '../../compiler/suggest.js';
import { workflowJsonSchema } from '../../schema.js';
import type { Compose } from '../composition.js';
import { handler, type GlobalArgs, packOptions } from '../handler.js';
import { collectInputs, collectVars, type InputArgs } from '../inputs.js';
import { emit, palette } from '../output.js';
import { checkEmit, emitOptions, emitPlan, type EmitArgs } from './plan-emit.js';
import { fanoutOf, shardCount, stagesForPlan, stagesText } from '../stage-options.js';

interface StageArgs {
  stages?: boolean;
  shards?: unknown;
  fanout?: unknown;
}

interface FileArgs extends GlobalArgs, InputArgs {
  file: string;
  workspace?: string;
}

/** --vars-file and --var: variable overrides over every task (docs/workflow-format.md#variable-files). */
export function varOptions<T>(yargs: import('yargs').Argv<T>) {
  return yargs
    .option('vars-file', { type: 'string', nargs: 1, describe: 'a YAML or JSON object of vars over every task (at most 1 MiB); repeatable, the last wins' })
    .option('var', { type: 'string', nargs: 1, describe: 'KEY=JSON, a var over every task and every --vars-file; repeatable' });
}

/** --input, --inputs and --inputs-file (and the var overrides), shared by plan and run. */
export function inputOptions<T>(yargs: import('yargs').Argv<T>) {
  return varOptions(yargs)
    .option('input', { type: 'string', nargs: 1, describe: 'KEY=VALUE (VALUE parsed as JSON, else a string); repeatable' })
    .option('inputs', { type: 'string', describe: 'a JSON object of inputs' })
    .option('inputs-file', { type: 'string', describe: 'a file holding a JSON object of inputs (at most 1 MiB)' })
    .conflicts('inputs', 'inputs-file');
}

/**
 * `<file>`, `--workspace` and the input options of a command that inspects one workflow on this machine without
 * running it (doctor, auth check).
 */
export function workflowHereOptions<T>(yargs: import('yargs').Argv<T>) {
  return inputOptions(
    yargs
      .positional('file', { type: 'string', demandOption: true, describe: 'workflow YAML file' })
      .option('workspace', { type: 'string', describe: "workspace folder (default: the workflow file's folder)" }),
  );
}

/** The workflow text and the name diagnostics give it: FILE, or standard input for `-` (bounded to 1 MiB). */
async function readWorkflow(file: string): Promise<{ name: string; text: string }> {
  if (file === STDIN_ARGUMENT) return { name: STDIN_NAME, text: await readBoundedStdin('workflow from standard input') };
  return { name: file, text: readBoundedFile(file, 'workflow file') };
}

/** --workspace, shared by check and plan: where `run` would resolve paths, so policy is judged as it would be. */
/** A mount's source in plan's text: `workspace PATH` or `artifact sha256:...`. */
const mountSource = (source: MountSource) => ('workspace' in source ? `workspace ${source.workspace}` : `artifact ${source.artifact}`);

function workspaceOption<T>(yargs: import('yargs').Argv<T>) {
  return yargs.option('workspace', { type: 'string', describe: "workspace folder for policy checks (default: the workflow file's folder; for -, the current folder)" });
}

/** The absolute workspace root `run` would use: --workspace (or the file's folder) with policy.workspaceRoot. */
function workspaceRootOf(argv: { workspace?: string; file: string }, plan: CompiledPlan): string {
  const workspace = resolve(argv.workspace ?? (argv.file === STDIN_ARGUMENT ? '.' : dirname(resolve(argv.file))));
  let folder = false;
  try {
    folder = statSync(workspace).isDirectory();
  } catch {
    folder = false;
  }
  if (!folder) throw new AgentctlError('AGENTCTL_E_USAGE', `--workspace ${workspace} is not an existing folder`);
  return resolve(workspace, plan.policy.workspaceRoot);
}

/** Where a task is written in the document, for its policy diagnostics. */
function taskLocation(source: SourceDocument) {
  return (task: CompiledTask) => ({ file: source.file, ...source.locate(['spec', 'tasks', task.index]), path: `spec.tasks[${task.index}]` });
}

export const checkCommand = (compose: Compose): CommandModule<GlobalArgs, FileArgs> => ({
  command: 'check <file>',
  describe: 'Validate a workflow without running it, and judge its effects by policy',
  builder: (yargs) => workspaceOption(varOptions(yargs.positional('file', { type: 'string', demandOption: true, describe: 'workflow YAML file, or - for standard input' }))) as never,
  handler: handler<FileArgs>(async (argv, output) => {
    const host = compose();
    const vars = collectVars(argv);
    const workflow = await readWorkflow(argv.file);
    const { plan, source, warnings } = await compileText(host, workflow.name, workflow.text, { packs: packOptions(argv), vars });
    const verdicts = previewPolicy(host, plan, workspaceRootOf(argv, plan), defaultStatePaths());
    const diagnostics = [...warnings, ...policyDiagnostics(plan, verdicts, taskLocation(source))];
    const denials = diagnostics.filter((item) => item.severity === 'error');
    // A task that policy will certainly deny is a policy error (exit 3), found before anything runs.
    if (denials.length > 0) {
      const first = denials[0]!;
      const more = denials.length > 1 ? ` (and ${denials.length - 1} more)` : '';
      throw new AgentctlError(first.code, `${workflow.name}:${first.line}:${first.column}: ${first.message}${more}`, { diagnostics, exitCode: EXIT.policy });
    }
    checkInstructionFiles(plan, workspaceRootOf(argv, plan), source);
    const policy = plan.tasks.map((task) => ({ taskId: task.id, ...verdicts.get(task.id)! }));
    const { workflowDigest, planDigest } = planDocument(host, plan);
    const data = { valid: true, workflow: plan.name, workflowDigest, planDigest, tasks: plan.tasks.length, file: workflow.name, digest: plan.digest, actions: Object.keys(plan.actions).length, policy };
    emit(
      output,
      'CheckResult',
      data,
      () => [`${palette(output.colorStdout).green('ok')}: ${workflow.name} (workflow ${plan.name}, ${plan.tasks.length} tasks)`, ...diagnostics.map((item) => `  ${item.message} (${item.code} without a terminal)`)].join('\n'),
      { diagnostics },
    );
    return 0;
  }),
});

/** --stages, --shards and --fanout of `plan`: how the plan splits for scale-out. */
function stageOptions<T>(yargs: import('yargs').Argv<T>) {
  return yargs
    .option('stages', { type: 'boolean', describe: 'add how the plan splits for scale-out: prepare, the items of one foreach/matrix, gather' })
    .option('shards', { type: 'string', describe: 'with the stages, assign item i to shard i mod N (1..256); --emit emitters read it' })
    .option('fanout', { type: 'string', describe: 'the foreach/matrix task to cut at (default: the one with the most items)' });
}

export const planCommand = (compose: Compose): CommandModule<GlobalArgs, FileArgs & EmitArgs & StageArgs> => ({
  command: 'plan <file>',
  describe: 'Show the execution order, task inputs, effect classes, policy verdicts and processes of a workflow',
  builder: (yargs) => stageOptions(emitOptions(workspaceOption(inputOptions(yargs.positional('file', { type: 'string', demandOption: true, describe: 'workflow YAML file, or - for standard input' }))))) as never,
  handler: handler<FileArgs & EmitArgs & StageArgs>(async (argv, output) => {
    const host = compose();
    checkEmit(host, argv);
    // The stage options are checked before the workflow is compiled: a bad count costs nothing.
    const shards = argv.shards === undefined ? undefined : shardCount(argv.shards);
    const fanout = fanoutOf(argv.fanout);
    const inputs = collectInputs(argv);
    const vars = collectVars(argv);
    const workflow = await readWorkflow(argv.file);
    const { plan } = await compileText(host, workflow.name, workflow.text, { inputs, packs: packOptions(argv), vars });
    const described = describePlan(host, plan, previewPolicy(host, plan, workspaceRootOf(argv, plan), defaultStatePaths()));
    const withStages = Boolean(argv.stages) || shards !== undefined || fanout !== undefined;
    const stages = withStages ? stagesForPlan(plan, fanout, shards) : undefined;
    const view = stages === undefined ? described : { ...described, stages };
    if (argv.emit !== undefined) {
      await emitPlan(host, view as unknown as PlanDocument, argv as EmitArgs & { emit: string; out: string }, output);
      return 0;
    }
    emit(output, 'Plan', view, () => {
      const lines = [`workflow ${view.workflow} (${view.order.length} tasks, maxConcurrency ${view.runtime.maxConcurrency})`, `plan ${view.planDigest}`];
      view.order.forEach((id, index) => {
        const task = view.tasks[id]!;
        const needs = task.needs.length > 0 ? ` after ${task.needs.join(', ')}` : '';
        const policy = task.policy.decision === 'deny' ? `policy deny ${task.policy.code}` : `policy ${task.policy.decision}`;
        lines.push(`${String(index + 1).padStart(3)}. ${task.id}  ${task.kind}  ${task.effectClass}/${task.risk}  ${task.inputPredictability}  ${policy}${needs}`);
        if (task.control) lines.push(`       ${task.control}`);
        if (task.expansion) lines.push(`       ${task.expansion.form} child ${task.expansion.index} of ${task.expansion.parent}: ${JSON.stringify(task.expansion.binding)}`);
        if (task.routedBy) lines.push(`       runs only when router ${task.routedBy} selects it`);
        const writes = plan.tasks.find((compiled) => compiled.id === id)?.memoryWrites ?? [];
        if (writes.length > 0) lines.push(`       writes working memory ${writes.join(', ')}`);
        if (task.compensate) lines.push(`       compensated by ${task.compensate.uses} (${task.compensate.kind}, ${task.compensate.effectClass})`);
        if (task.policy.decision === 'deny' || task.policy.decision === 'needs_approval') lines.push(`       ${task.policy.message}`);
      });
      for (const process of view.processes) {
        const options = Object.entries(process.options ?? {}).map(([key, value]) => `${key} ${typeof value === 'string' ? value : JSON.stringify(value)}`);
        lines.push(`process ${process.action}: ${process.executable ?? `${process.command} (not found)`} ${process.args.join(' ')}  [${[process.isolation, ...options].join(', ')}, timeout ${process.limits.timeoutSeconds}s, tasks ${process.tasks.join(', ')}]`);
        for (const mount of process.mounts ?? []) lines.push(`  mount ${mountSource(mount.source)} at ${mount.target}${mount.readOnly ? ' (read-only)' : ''}`);
        for (const entry of process.propagatedEnvironment ?? []) lines.push(`  environment ${entry.name} added by plugin ${entry.plugin} (propagation)`);
        for (const task of process.tasks.map((id) => view.tasks[id]!).filter((candidate) => Object.keys(candidate.input as object).length > 0)) {
          lines.push(`  task ${task.id} with ${JSON.stringify(task.input)}${task.inputPredictability === 'dynamic' ? ' (completed at run time)' : ''}`);
        }
      }
      for (const agent of view.agents) {
        const tools = agent.tools.map((tool) => `${tool.name} (${tool.effectClass}/${tool.risk}${tool.approval === 'policy' ? '' : `, approval ${tool.approval}`})`).join(', ') || 'none';
        const { limits } = agent;
        lines.push(`agent ${agent.agent} (task ${agent.task}): ${agent.provider.kind} ${agent.model} via ${agent.provider.name}  [maxTurns ${limits.maxTurns}, maxToolCalls ${limits.maxToolCalls}, maxOutputTokens ${limits.maxOutputTokens}, timeout ${limits.timeoutSeconds}s per call]`);
        lines.push(`  tools: ${tools}`);
      }
      if (stages) lines.push(...stagesText(stages));
      return lines.join('\n');
    });
    return 0;
  }),
});

interface SchemaArgs extends GlobalArgs {
  kind?: string;
  write?: string;
}

export const schemaCommand = (compose: Compose): CommandModule<GlobalArgs, SchemaArgs> => ({
  command: 'schema',
  describe: 'Print or write the JSON Schema of the workflow format, or with --kind of one of the CLI\'s JSON documents',
  builder: (yargs) =>
    yargs
      .option('kind', { type: 'string', describe: 'a document kind (RunOutcome, Plan, Error, StreamEvent, ...): the JSON Schema of that document' })
      .option('write', { type: 'string', describe: 'write the schema to this file (pretty JSON) and print a SchemaWrite document' }),
  handler: handler<SchemaArgs>(async (argv, output) => {
    let schema: Record<string, unknown>;
    let kind = 'WorkflowSchema';
    if (argv.kind !== undefined) {
      const { cliDocumentJsonSchema, cliDocumentKinds } = await import('@agentctl/sdk/documents');
      const found = cliDocumentJsonSchema(argv.kind);
      if (!found) {
        const near = closest(argv.kind, cliDocumentKinds());
        throw new AgentctlError('AGENTCTL_E_USAGE', `--kind ${argv.kind} is not a document kind of agentctl`, { help: `${near ? `did you mean ${near}? ` : ''}kinds: ${cliDocumentKinds().join(', ')}` });
      }
      schema = found;
      kind = 'DocumentSchema';
    } else schema = workflowJsonSchema(compose()) as Record<string, unknown>;
    if (argv.write !== undefined) {
      const path = argv.write;
      writeSchema(path, `${JSON.stringify(schema, null, 2)}\n`);
      emit(output, 'SchemaWrite', { path, written: true, schema: kind === 'DocumentSchema' ? argv.kind! : 'Workflow' }, () => `wrote ${path}`);
      return 0;
    }
    emit(output, kind, schema, () => JSON.stringify(schema, null, 2));
    return 0;
  }),
});

/** Writes the schema file in place (it is generated output a user asked for); a path that cannot be written is a usage error. */
function writeSchema(path: string, text: string): void {
  try {
    writeFileSync(path, text);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new AgentctlError('AGENTCTL_E_USAGE', `--write ${path}: cannot write the schema (${code})`, { help: 'name a file in an existing, writable folder' });
  }
}

/** What a run with the default --db protects: check and plan flag tasks aimed at agentctl's own state. */
function defaultStatePaths(): readonly string[] {
  return statePaths(resolve(DEFAULT_DB));
}
