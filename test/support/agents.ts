// Shared pieces of the agent end-to-end cases: a strict workspace-read tool as the reference writes one.

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
