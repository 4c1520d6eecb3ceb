// When the document as a whole does not match the format, the compiler still checks every part it can: each
// section, action and task is taken on its own, so one pass reports every problem instead of one phase at a time.
import { policySchema, type SpecSectionValues } from '@agentctl/sdk';
import { agentSchema, providerSchema, toolSchema } from './agent-schema.js';
import { actionBaseSchema, runtimeSchema, subworkflowSchema, taskSchema, type Envelope, type TaskDocument } from './envelope.js';
import { memorySchema } from './memory-spec.js';
import { packTrustSchema } from './packs/reference.js';

/** A task that matched the task schema, with its position in spec.tasks. */
export interface IndexedTask {
  readonly task: TaskDocument;
  readonly index: number;
}

/** The parts of a workflow the later checks need, as far as they could be read. */
export interface WorkflowParts {
  readonly envelope: Envelope;
  readonly tasks: readonly IndexedTask[];
  /** Every task id written in the document, including tasks that did not match the schema. */
  readonly ids: ReadonlySet<string>;
  /** The plugin-owned spec sections the document writes and that match their schemas. */
  readonly sections: SpecSectionValues;
  /** Sections the document writes that do not match their schemas. */
  readonly unreadableSections: ReadonlySet<string>;
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Parts of a valid envelope. */
export function completeParts(envelope: Envelope): Omit<WorkflowParts, 'sections' | 'unreadableSections'> {
  return { envelope, tasks: envelope.spec.tasks.map((task, index) => ({ task, index })), ids: new Set(envelope.spec.tasks.map((task) => task.id)) };
}

/** Parts of a document that failed the envelope schema: each section read on its own, the unreadable ones left out. */
export function salvageParts(document: unknown): Omit<WorkflowParts, 'sections' | 'unreadableSections'> {
  const root = isObject(document) ? document : {};
  const spec = isObject(root.spec) ? root.spec : {};
  const record = (value: unknown) => (isObject(value) ? value : {}) as Record<string, never>;
  const actions: Envelope['spec']['actions'] = {};
  for (const [name, raw] of Object.entries(record(spec.actions))) {
    const parsed = actionBaseSchema.safeParse(raw);
    if (parsed.success) actions[name] = parsed.data;
  }
  const entries = <T>(value: unknown, schema: { safeParse(raw: unknown): { success: true; data: T } | { success: false } }): Record<string, T> =>
    Object.fromEntries(Object.entries(record(value)).flatMap(([key, raw]) => {
      const parsed = schema.safeParse(raw);
      return parsed.success ? [[key, parsed.data]] : [];
    }));
  const rawTasks = Array.isArray(spec.tasks) ? (spec.tasks as unknown[]) : [];
  const tasks: IndexedTask[] = [];
  rawTasks.forEach((raw, index) => {
    const parsed = taskSchema.safeParse(raw);
    if (parsed.success) tasks.push({ task: parsed.data, index });
  });
  const ids = new Set(rawTasks.flatMap((raw) => (isObject(raw) && typeof raw.id === 'string' ? [raw.id] : [])));
  const policy = policySchema.safeParse(spec.policy ?? {});
  const runtime = runtimeSchema.safeParse(spec.runtime ?? {});
  const memory = memorySchema.safeParse(spec.memory ?? {});
  const envelope: Envelope = {
    apiVersion: 'agentctl.dev/v1',
    kind: 'Workflow',
    metadata: { name: 'invalid', labels: {} },
    spec: {
      inputs: record(spec.inputs),
      vars: record(spec.vars),
      varsFiles: [],
      outputs: record(spec.outputs),
      policy: policy.success ? policy.data : policySchema.parse({}),
      runtime: runtime.success ? runtime.data : runtimeSchema.parse({}),
      providers: entries(spec.providers, providerSchema),
      agents: entries(spec.agents, agentSchema),
      tools: entries(spec.tools, toolSchema),
      actions,
      subworkflows: entries(spec.subworkflows, subworkflowSchema),
      packs: [],
      packTrust: packTrustSchema.parse({}),
      memory: memory.success ? memory.data : memorySchema.parse({}),
      tasks: tasks.map((entry) => entry.task),
    },
  };
  return { envelope, tasks, ids };
}
