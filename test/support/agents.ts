// Shared pieces of the agent end-to-end cases: a strict workspace-read tool as the reference writes one, and a tool that runs an action.

/** A `builtin.workspace.read` tool whose output is any object. */
export const READ_TOOL = {
  kind: 'builtin.workspace.read',
  description: 'Read one workspace file.',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
  outputSchema: { type: 'object' },
  capability: 'filesystem.read',
  risk: 'low',
  effectClass: 'observe',
  idempotency: 'idempotent',
  retrySafe: true,
  timeoutSeconds: 5,
} as const;

/** The tool that runs `action`; the model calls it with no input. */
export const actionTool = (action: string, extra: Record<string, unknown> = {}) => ({
  kind: 'action',
  action,
  description: 'Run the action.',
  inputSchema: { type: 'object', properties: {}, required: [], additionalProperties: false },
  outputSchema: { type: 'object' },
  capability: 'process.exec',
  risk: 'low',
  effectClass: 'observe',
  idempotency: 'idempotent',
  retrySafe: false,
  timeoutSeconds: 30,
  ...extra,
});
