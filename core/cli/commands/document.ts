// check, plan and schema: commands that read a workflow (or the format) and never touch the database.
import type { CommandModule } from 'yargs';
import { compileFile } from '../../compiler/compile.js';
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

export const checkCommand = (compose: Compose): CommandModule<GlobalArgs, FileArgs> => ({
  command: 'check <file>',
  describe: 'Validate a workflow without running it',
  builder: (yargs) => yargs.positional('file', { type: 'string', demandOption: true, describe: 'workflow YAML file' }) as never,
  handler: handler<FileArgs>(async (argv, output) => {
    const { plan } = await compileFile(compose(), argv.file);
    const data = { file: argv.file, workflow: plan.name, digest: plan.digest, tasks: plan.tasks.length, actions: Object.keys(plan.actions).length };
    emit(output, 'CheckResult', data, () => `${palette(output.colorStdout).green('ok')}: ${argv.file} (workflow ${plan.name}, ${plan.tasks.length} tasks)`);
    return 0;
  }),
});

export const planCommand = (compose: Compose): CommandModule<GlobalArgs, FileArgs> => ({
  command: 'plan <file>',
  describe: 'Show the execution order, task inputs, effect classes and processes of a workflow',
  builder: (yargs) => inputOptions(yargs.positional('file', { type: 'string', demandOption: true, describe: 'workflow YAML file' })) as never,
  handler: handler<FileArgs>(async (argv, output) => {
    const host = compose();
    const { plan } = await compileFile(host, argv.file, { inputs: collectInputs(argv) });
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
