// The scale-out options: --stages, --shards N and --fanout TASK (plan), --stage and --shard I/N (run), checked.
import { AgentctlError, type CompiledPlan, type PlanStages } from '@agentctl/sdk';
import { cutPlan, MAX_SHARDS } from '../compiler/stages.js';

const shardsHelp = `--shards N takes 1 <= N <= ${MAX_SHARDS}; --shard I/N takes 0 <= I < N (shards are numbered from 0, like JOB_COMPLETION_INDEX)`;

/** A whole number written in decimal digits only ("3", never "3.0", "+3" or "0x3"). */
const wholeNumber = (text: string): number | undefined => (/^\d{1,6}$/.test(text) ? Number(text) : undefined);

function single(name: string, value: unknown): string {
  if (Array.isArray(value)) throw new AgentctlError('AGENTCTL_E_USAGE', `${name} was given ${value.length} times; give it once`);
  return String(value ?? '').trim();
}

/** The --shards value: a whole number from 1 through 256. */
export function shardCount(value: unknown): number {
  const text = single('--shards', value);
  const count = wholeNumber(text);
  if (count === undefined || count < 1 || count > MAX_SHARDS) throw new AgentctlError('AGENTCTL_E_SHARDS_INVALID', `--shards ${JSON.stringify(text)} is not a shard count from 1 through ${MAX_SHARDS}`, { help: shardsHelp });
  return count;
}

/** The --shard I/N value: shard I of N, numbered from 0. */
export function shardOf(value: unknown): { index: number; count: number } {
  const text = single('--shard', value);
  const match = /^(\d{1,6})\/(\d{1,6})$/.exec(text);
  if (!match) throw new AgentctlError('AGENTCTL_E_SHARDS_INVALID', `--shard ${JSON.stringify(text)} is not I/N (e.g. --shard 0/4)`, { help: shardsHelp });
  const [index, count] = [Number(match[1]), Number(match[2])];
  if (count < 1 || count > MAX_SHARDS) throw new AgentctlError('AGENTCTL_E_SHARDS_INVALID', `--shard ${text}: the shard count ${count} is not from 1 through ${MAX_SHARDS}`, { help: shardsHelp });
  if (index >= count) throw new AgentctlError('AGENTCTL_E_SHARDS_INVALID', `--shard ${text}: shard ${index} does not exist among ${count} (they are numbered 0 through ${count - 1})`, { help: shardsHelp });
  return { index, count };
}

/** The --fanout value: a task id, or undefined when not given. */
export function fanoutOf(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const text = single('--fanout', value);
  if (text === '') throw new AgentctlError('AGENTCTL_E_USAGE', '--fanout needs a task id', { help: 'name the id of a task written with foreach or matrix' });
  return text;
}

/**
 * The cut `plan --stages` prints: an unshardable plan is a document (its reason says why), except a --fanout that
 * names no expansion, which is a usage error.
 */
export function stagesForPlan(plan: CompiledPlan, fanout: string | undefined, shards: number | undefined): PlanStages {
  const stages = cutPlan(plan, { ...(fanout === undefined ? {} : { fanout }), ...(shards === undefined ? {} : { shards }) });
  if (stages.reason?.code === 'fanout_not_found') throw new AgentctlError('AGENTCTL_E_FANOUT_NOT_FOUND', `--fanout ${fanout}: ${stages.reason.message}`);
  return stages;
}

/** The cut a staged run needs: a plan that cannot be split is refused (exit 2) with its reason code. */
export function shardableStages(plan: CompiledPlan, fanout: string | undefined): PlanStages {
  const stages = stagesForPlan(plan, fanout, undefined);
  if (!stages.shardable) {
    throw new AgentctlError('AGENTCTL_E_NOT_SHARDABLE', `workflow ${plan.name} cannot be split into stages (${stages.reason!.code}): ${stages.reason!.message}`, {
      help: 'run the workflow whole with agentctl run FILE; `agentctl plan FILE --stages` shows the cut',
    });
  }
  return stages;
}

/** Human lines of a cut: the three stages and, with a shard count, the items each shard runs. */
export function stagesText(stages: PlanStages): string[] {
  if (!stages.shardable) return [`stages: not shardable (${stages.reason!.code}): ${stages.reason!.message}`];
  const fanout = stages.fanout!;
  const lines = [
    `stages: cut at ${fanout.construct} ${fanout.taskId} (${fanout.items} items)`,
    `  prepare (${stages.prepare.length}): ${stages.prepare.join(', ') || '(none)'}`,
    `  fan-out (${stages.items.reduce((sum, item) => sum + item.taskIds.length, 0)} tasks):`,
    ...stages.items.map((item) => `    item ${item.index}: ${item.taskIds.join(', ')}`),
    `  gather (${stages.gather.length}): ${stages.gather.join(', ') || '(none)'}`,
  ];
  if (stages.assignment) {
    lines.push(`  shards (${stages.shards}):`);
    for (const shard of stages.assignment) lines.push(`    shard ${shard.shard}/${stages.shards}: ${shard.items.length === 0 ? 'no item (succeeds at once)' : `items ${shard.items.join(', ')}`}`);
  }
  return lines;
}
