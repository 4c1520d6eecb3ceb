// The reference's tool kinds: read a workspace file, write one below a writable root, echo the input back. Each call
// is recorded and authorized by the host like any effect; these only say what they access and do the work.
import { createHash } from 'node:crypto';
import { definePlugin, EffectFailure, utf8Text, type JsonObject, type JsonValue, type ToolKind, type ToolSettings } from '@agentctl/sdk';

const MAX_READ_BYTES = 1024 * 1024;
const MAX_WRITE_BYTES = 16 * 1024 * 1024;

const digest = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** What a tool of a kind must declare: its capability, effect class and the idempotencies that are true of it. */
function declares(tool: ToolSettings, capability: string, effectClass: string, idempotency: readonly string[]): string[] {
  const problems: string[] = [];
  if (tool.capability !== capability) problems.push(`${tool.kind} has capability ${capability}, not ${tool.capability}`);
  if (tool.profile.effectClass !== effectClass) problems.push(`${tool.kind} has effectClass ${effectClass}, not ${tool.profile.effectClass}`);
  if (!idempotency.includes(tool.profile.idempotency)) problems.push(`${tool.kind} is ${idempotency.join(' or ')}, not ${tool.profile.idempotency}`);
  return problems;
}

/** The fields of the input a kind reads: its inputSchema must declare and require each of them, as strings. */
function requiresStrings(tool: ToolSettings, fields: readonly string[]): string[] {
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, JsonObject>;
  const required = Array.isArray(tool.inputSchema.required) ? (tool.inputSchema.required as JsonValue[]) : [];
  return fields.flatMap((field) =>
    properties[field]?.type === 'string' && required.includes(field) ? [] : [`${tool.kind} reads "${field}": the inputSchema must declare it as a required string`],
  );
}

const field = (input: JsonValue, name: string): string => {
  const value = (input as JsonObject)[name];
  if (typeof value !== 'string') throw new EffectFailure('failed', 'AGENTCTL_E_TOOL_CALL_INVALID', `${name} must be a string`);
  return value;
};

export const workspaceRead: ToolKind = {
  kind: 'builtin.workspace.read',
  description: 'Reads a UTF-8 file inside the workspace root (at most 1 MiB): {path} → {path, content, bytes, sha256}.',
  checkDefinition: (tool) => [...declares(tool, 'filesystem.read', 'observe', ['idempotent']), ...requiresStrings(tool, ['path'])],
  access: (input) => ({ reads: [field(input, 'path')] }),
  async run(input, { files }) {
    const path = field(input, 'path');
    const bytes = await files.read(path, { maxBytes: MAX_READ_BYTES });
    return { path, content: utf8Text(bytes, path), bytes: bytes.length, sha256: digest(bytes) };
  },
};

export const workspaceWrite: ToolKind = {
  kind: 'builtin.workspace.write',
  description: 'Writes a UTF-8 file below a writable root, atomically: {path, content} → {path, bytes, sha256}.',
  checkDefinition: (tool) => [...declares(tool, 'filesystem.write', 'workspace_mutate', ['idempotent', 'keyed']), ...requiresStrings(tool, ['path', 'content'])],
  access: (input) => ({ writes: [field(input, 'path')] }),
  async run(input, { files }) {
    const path = field(input, 'path');
    const bytes = Buffer.from(field(input, 'content'), 'utf8');
    if (bytes.length > MAX_WRITE_BYTES) throw new EffectFailure('failed', 'AGENTCTL_E_FILE_TOO_LARGE', `content is ${bytes.length} bytes; at most ${MAX_WRITE_BYTES}`);
    await files.writeAtomic(path, bytes);
    return { path, bytes: bytes.length, sha256: digest(bytes) };
  },
};

export const echo: ToolKind = {
  kind: 'builtin.echo',
  description: 'Returns its input unchanged.',
  checkDefinition: (tool) => declares(tool, 'internal', 'pure', ['pure']),
  access: () => ({}),
  async run(input) {
    return input;
  },
};

export default definePlugin({
  name: 'builtin.tools.workspace',
  version: '0.1.0',
  hostRange: '^0.1.0',
  description: 'Tool kinds builtin.workspace.read, builtin.workspace.write and builtin.echo.',
  setup(api) {
    for (const tool of [workspaceRead, workspaceWrite, echo]) api.registerToolKind(tool);
  },
});
