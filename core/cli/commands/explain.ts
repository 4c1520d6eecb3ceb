// `agentctl explain FILE`: where each variable comes from, never its value. For each scope (`spec`, `spec.agents.NAME`,
// `spec.tasks.ID`, `spec.subworkflows.NAME.tasks.ID`, `invocation`) the source that wins each name — an inline `vars`,
// a `varsFiles[i]:PATH`, an `--vars-file`, or `invocation:--var` — and for every task the effective origin of each
// name it sees (workflow, then agent, then task, then invocation). The workflow compiles first, so every error
// `check` gives (a reserved name, a duplicate key in a variable file) is given here too.
import { dirname, resolve } from 'node:path';
import type { CommandModule } from 'yargs';
import { parse } from 'yaml';
import { readBoundedFile } from '../../compiler/source.js';
import { compileText } from '../../compiler/compile.js';
import { readVarOverrides } from '../../compiler/vars-files.js';
import type { CompiledPlan, JsonValue } from '@agentctl/sdk';
import type { Compose } from '../composition.js';
import { handler, type GlobalArgs, packOptions } from '../handler.js';
import { collectVars, type InputArgs } from '../inputs.js';
import { emit } from '../output.js';
import { varOptions } from './document.js';

interface ExplainArgs extends GlobalArgs, InputArgs {
  file: string;
  workspace?: string;
}

type Origins = Record<string, Record<string, string>>;
type Declared = { vars?: Record<string, unknown>; varsFiles?: string[] };
type TaskDeclared = Declared & { id?: string; uses?: string };

export const explainCommand = (compose: Compose): CommandModule<GlobalArgs, ExplainArgs> => ({
  command: 'explain <file>',
  describe: 'Show where each variable of a workflow comes from (file, inline vars, --vars-file, --var), never its value',
  builder: (yargs) =>
    varOptions(yargs.positional('file', { type: 'string', demandOption: true, describe: 'workflow YAML file' }).option('workspace', { type: 'string', describe: "workspace folder (default: the workflow file's folder)" })) as never,
  handler: handler<ExplainArgs>(async (argv, output) => {
    const text = readBoundedFile(argv.file, 'workflow file');
    const { plan } = await compileText(compose(), argv.file, text, { packs: packOptions(argv), vars: collectVars(argv) });
    const document = (parse(text) ?? {}) as { spec?: Declared & { agents?: Record<string, Declared>; tasks?: TaskDeclared[]; subworkflows?: Record<string, { tasks?: TaskDeclared[] }> } };
    const spec = document.spec ?? {};
    const origins: Origins = {};
    const fileKeys = (path: string) => Object.keys(varsFileContent(plan, path));
    const scope = (name: string, declared: Declared | undefined) => addScope(origins, name, declared, fileKeys);
    scope('spec', spec);
    for (const [name, agent] of Object.entries(spec.agents ?? {})) scope(`spec.agents.${name}`, agent);
    const tasks: { scope: string; uses: string }[] = [];
    const addTasks = (prefix: string, list: TaskDeclared[] | undefined) => {
      for (const task of list ?? []) {
        scope(`${prefix}.${task.id}`, task);
        tasks.push({ scope: `${prefix}.${task.id}`, uses: String(task.uses ?? '') });
      }
    };
    addTasks('spec.tasks', spec.tasks);
    for (const [name, definition] of Object.entries(spec.subworkflows ?? {})) addTasks(`spec.subworkflows.${name}.tasks`, definition.tasks);
    invocationOrigins(origins, argv);
    const effectiveOrigins: Origins = {};
    for (const task of tasks) {
      const agent = task.uses.startsWith('agent:') ? origins[`spec.agents.${task.uses.slice('agent:'.length)}`] : undefined;
      effectiveOrigins[task.scope] = { ...origins.spec, ...agent, ...origins[task.scope], ...origins.invocation };
    }
    const data = { origins, effectiveOrigins, workflow: plan.name };
    emit(output, 'SourceExplanation', data, () => {
      const lines = [`variable origins of ${plan.name} (values are not shown)`];
      for (const [name, names] of Object.entries(effectiveOrigins)) {
        lines.push(`${name}:`, ...Object.entries(names).map(([variable, origin]) => `  ${variable} <- ${origin}`));
      }
      return lines.join('\n');
    });
    return 0;
  }),
});

/** One scope's winners: its variable files in order, then its inline vars (which win). */
function addScope(origins: Origins, scope: string, declared: Declared | undefined, fileKeys: (path: string) => string[]): void {
  const winners: Record<string, string> = {};
  (declared?.varsFiles ?? []).forEach((path, index) => {
    for (const key of fileKeys(path)) winners[key] = `${scope}.varsFiles[${index}]:${path}`;
  });
  for (const key of Object.keys(declared?.vars ?? {})) winners[key] = `${scope}.vars`;
  if (Object.keys(winners).length > 0) origins[scope] = sorted(winners);
}

/** `--vars-file` files in order, then `--var` (which wins), as the compiler merged them. */
function invocationOrigins(origins: Origins, argv: ExplainArgs): void {
  const files = ([] as string[]).concat(argv['vars-file'] ?? []);
  const pairs = ([] as string[]).concat(argv.var ?? []);
  const root = resolve(argv.workspace ?? dirname(resolve(argv.file)));
  const winners: Record<string, string> = {};
  files.forEach((file, index) => {
    for (const key of Object.keys(readVarOverrides([file], [], root))) winners[key] = `invocation.varsFiles[${index}]:${file}`;
  });
  for (const pair of pairs) winners[pair.slice(0, Math.max(0, pair.indexOf('=')))] = 'invocation:--var';
  if (Object.keys(winners).length > 0) origins.invocation = sorted(winners);
}

/** The content the compiler read for a variable file the workflow names (stored by digest, or by path in older plans). */
function varsFileContent(plan: CompiledPlan, path: string): Record<string, JsonValue> {
  const entry = plan.capturedVars?.files[path];
  if (entry === undefined) return {};
  if (typeof entry !== 'string') return entry;
  return plan.capturedVars?.contents?.[entry] ?? {};
}

const sorted = (record: Record<string, string>) => Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
