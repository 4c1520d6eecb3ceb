// `plan FILE --emit FORMAT --out DIR`: the plan document through a plan emitter, its files written under DIR.
import { AgentctlError, type JsonValue, type PlanDocument } from '@agentctl/sdk';
import type { Host } from '../../host.js';
import { emit, type OutputOptions } from '../output.js';
import { unknownFormat, writeEmitted } from '../output-files.js';

export interface EmitArgs {
  emit?: string;
  out?: string;
  'emit-option'?: string | string[];
}

/** The --emit, --out and --emit-option options of `plan`. */
export function emitOptions<T>(yargs: import('yargs').Argv<T>) {
  return yargs
    .option('emit', { type: 'string', describe: 'write the plan in this format under --out instead of printing it (json, ...; `agentctl plugins list` shows them)' })
    .option('out', { type: 'string', describe: 'with --emit: the folder the emitted files are written to (created when missing)' })
    .option('emit-option', { type: 'string', nargs: 1, describe: 'with --emit: KEY=VALUE, an option of the emitter (VALUE read as JSON when it parses); repeatable' });
}

/** Checks the emit options before the workflow is compiled: a missing --out or an unknown format costs nothing. */
export function checkEmit(host: Host, argv: EmitArgs): void {
  if (argv.emit === undefined) {
    if (argv.out !== undefined || argv['emit-option'] !== undefined) throw new AgentctlError('AGENTCTL_E_USAGE', `--${argv.out !== undefined ? 'out' : 'emit-option'} is given without --emit`, { help: 'add --emit FORMAT, e.g. --emit json --out plan-out' });
    return;
  }
  if (argv.out === undefined) throw new AgentctlError('AGENTCTL_E_USAGE', `--emit ${argv.emit} needs --out DIR: an emitter writes files`, { help: `add --out DIR, e.g. agentctl plan FILE --emit ${argv.emit} --out plan-out` });
  if (!host.planEmitter(argv.emit)) throw unknownFormat('--emit', argv.emit, host.planEmitters(), 'plan emitter');
}

/** Runs the emitter on the plan document, writes its files, and prints the PlanEmit document. */
export async function emitPlan(host: Host, plan: PlanDocument, argv: EmitArgs & { emit: string; out: string; file?: string }, output: OutputOptions): Promise<void> {
  const emitter = host.planEmitter(argv.emit)!;
  const given = Object.fromEntries(([] as string[]).concat(argv['emit-option'] ?? []).map(optionPair));
  let options: unknown = given;
  if (emitter.optionsSchema) {
    const parsed = emitter.optionsSchema.safeParse(given);
    if (!parsed.success) throw new AgentctlError('AGENTCTL_E_USAGE', `--emit-option: the options of emitter ${emitter.format} do not match: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || '(options)'}: ${issue.message}`).join('; ')}`, { help: `see the documentation of the ${emitter.format} emitter` });
    options = parsed.data;
  } else if (Object.keys(given).length > 0) throw new AgentctlError('AGENTCTL_E_USAGE', `--emit-option: emitter ${emitter.format} takes no options`, { help: 'remove --emit-option' });
  const files = writeEmitted(argv.out, await emitter.emit({ plan: Object.freeze(plan), file: argv.file, options }), emitter.format);
  const data = { format: emitter.format, out: argv.out, workflow: plan.workflowName, planDigest: plan.planDigest, files };
  emit(output, 'PlanEmit', data, () => [`wrote ${files.length} file${files.length === 1 ? '' : 's'} under ${argv.out} (${emitter.format}, plan ${plan.planDigest})`, ...files.map((file) => `  ${file.path}  ${file.bytes} bytes`)].join('\n'));
}

function optionPair(pair: string): [string, JsonValue] {
  const equals = pair.indexOf('=');
  if (equals < 1) throw new AgentctlError('AGENTCTL_E_USAGE', `--emit-option ${JSON.stringify(pair)} is not KEY=VALUE`, { help: 'example: --emit-option shards=4' });
  const text = pair.slice(equals + 1);
  try {
    return [pair.slice(0, equals), JSON.parse(text) as JsonValue];
  } catch {
    return [pair.slice(0, equals), text];
  }
}
