// A workflow document for the working-memory tests: spec.memory.working and the memory actions beside the given ones.
import { workflow, type WorkflowSpec } from './helpers.js';

/** `remember` (builtin.memory.write), `recall` (builtin.memory.read) and `set` (builtin.assign), then `actions`. */
export function memoryWorkflow(spec: Partial<WorkflowSpec> & { tasks: WorkflowSpec['tasks']; working?: Record<string, unknown> }): string {
  const { working, ...rest } = spec;
  const actions = { remember: { kind: 'builtin.memory.write' }, recall: { kind: 'builtin.memory.read' }, set: { kind: 'builtin.assign' }, ...rest.actions };
  return workflow({ ...rest, actions, ...(working ? { memory: { working } } : {}) } as WorkflowSpec, 'memory');
}
