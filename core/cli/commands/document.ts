// check, plan and schema: commands that read a workflow (or the format) and never touch the database.
import type { CommandModule } from 'yargs';
import { compileText } from '../../compiler/compile.js';
import { readBoundedFile, readBoundedStdin, STDIN_ARGUMENT, STDIN_NAME } from '../../compiler/source.js';
import { describePlan } from '../../plan-view.js';
import { workflowJsonSchema } from '../../schema.js';
import type { Compose } from '../composition.js';
import { handler, type GlobalArgs } from '../handler.js';
import { collectInputs, type InputArgs } from '../inputs.js';
import { emit, palette } from '../output.js';

interface FileArgs extends GlobalArgs, InputArgs {
  file: string;
}

/** --input, --inputs and --inputs-file, shared by plan and run. */
export function inputOptions<T>(yargs: import('yargs').Argv<T>) {
  return yargs
    .option('input', { type: 'string', nargs: 1, describe: 'KEY=VALUE (VALUE parsed as JSON, else a string); repeatable' })
    .option('inputs', { type: 'string', describe: 'a JSON object of inputs' })
    .option('inputs-file', { type: 'string', describe: 'a file holding a JSON object of inputs (at most 1 MiB)' })
    .conflicts('inputs', 'inputs-file');
}

/** The workflow text and the name diagnostics give it: FILE, or standard input for `-` (bounded to 1 MiB). */
async function readWorkflow(file: string): Promise<{ name: string; text: string }> {
  if (file === STDIN_ARGUMENT) return { name: STDIN_NAME, text: await readBoundedStdin('workflow from standard input') };
  return { name: file, text: readBoundedFile(file, 'workflow file') };
}

export const checkCommand = (compose: Compose): CommandModule<GlobalArgs, FileArgs> => ({
  command: 'check <file>',
  describe: 'Validate a workflow without running it',
  builder: (yargs) => yargs.positional('file', { type: 'string', demandOption: true, describe: 'workflow YAML file, or - for standard input' }) as never,
  handler: handler<FileArgs>(async (argv, output) => {
    const workflow = await readWorkflow(argv.file);
    const { plan } = await compileText(compose(), workflow.name, workflow.text);
    const data = { file: workflow.name, workflow: plan.name, digest: plan.digest, tasks: plan.tasks.length, actions: Object.keys(plan.actions).length };
    emit(output, 'CheckResult', data, () => `${palette(output.colorStdout).green('ok')}: ${workflow.name} (workflow ${plan.name}, ${plan.tasks.length} tasks)`);
    return 0;
  }),
});

export const planCommand = (compose: Compose): CommandModule<GlobalArgs, FileArgs> => ({
  command: 'plan <file>',
  describe: 'Show the execution order, task inputs, effect classes and processes of a workflow',
  builder: (yargs) => inputOptions(yargs.positional('file', { type: 'string', demandOption: true, describe: 'workflow YAML file, or - for standard input' })) as never,
  handler: handler<FileArgs>(async (argv, output) => {
    const host = compose();
    const inputs = collectInputs(argv);
    const workflow = await readWorkflow(argv.file);
    const { plan } = await compileText(host, workflow.name, workflow.text, { inputs });
    const view = describePlan(host, plan);
    emit(output, 'Plan', view, () => {
      const lines = [`workflow ${view.workflow} (${view.order.length} tasks, maxConcurrency ${view.runtime.maxConcurrency})`];
      view.tasks.forEach((task, index) => {
        const needs = task.needs.length > 0 ? ` after ${task.needs.join(', ')}` : '';
        lines.push(`${String(index + 1).padStart(3)}. ${task.id}  ${task.kind}  ${task.effectClass}/${task.risk}  ${task.predictability}${needs}`);
      });
      for (const process of view.processes) {
        lines.push(`process ${process.action}: ${process.executable ?? `${process.command} (not found)`} ${process.args.join(' ')}  [${process.isolation}, timeout ${process.limits.timeoutSeconds}s, tasks ${process.tasks.join(', ')}]`);
      }
      return lines.join('\n');
    });
    return 0;
  }),
});

export const schemaCommand = (compose: Compose): CommandModule<GlobalArgs, GlobalArgs> => ({
  command: 'schema',
  describe: 'Print the JSON Schema of the workflow format',
  handler: handler<GlobalArgs>(async (_argv, output) => {
    const schema = workflowJsonSchema(compose());
    emit(output, 'Schema', schema, () => JSON.stringify(schema, null, 2));
    return 0;
  }),
});
