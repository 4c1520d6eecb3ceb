// builtin.mcp: the `spec.mcpServers` section and the `mcp.call` action kind. Each task is one recorded effect (one tool
// call in a session of its own) whose result is the tool result; the task output is its structuredContent, or its
// content when it has none, as in the reference implementation.
import {
  AgentctlError,
  definePlugin,
  type ActionKind,
  type DispatchContext,
  type EffectAccess,
  type JsonObject,
  type JsonValue,
} from '@agentctl/sdk';
import { McpCall } from './client.js';
import { inputSchemaFor, mcpCallActionSchema, mcpCallInputSchema, mcpServersSection, type McpCallAction, type McpCallInput } from './schema.js';

const KIND = 'mcp.call';
/** Policy sees every call as this tool (toolsAllow / toolsDeny). */
const ACCESS: EffectAccess = { tool: 'mcp.call' };

export default definePlugin({
  name: 'builtin.mcp',
  version: '0.1.0',
  hostRange: '^0.1.0',
  description: 'MCP servers (spec.mcpServers) and the mcp.call action kind: one tool call over Streamable HTTP per task.',
  setup(api) {
    api.registerSpecSection(mcpServersSection);
    api.registerActionKind(mcpCallKind(api.hostVersion));
  },
});

function mcpCallKind(clientVersion: string): ActionKind<typeof mcpCallActionSchema, typeof mcpCallInputSchema> {
  return {
    name: KIND,
    description: 'Calls one tool of an MCP server declared in spec.mcpServers (Streamable HTTP, through the network policy); outputs its structuredContent, or its content.',
    actionSchema: mcpCallActionSchema,
    inputSchema: mcpCallInputSchema,
    effect: { effectClass: 'network', risk: 'medium', idempotency: 'unknown' },
    profileFor: (action) => ({ effectClass: 'network', risk: 'medium', idempotency: action.idempotency }),
    inputSchemaFor: (_action, context) => inputSchemaFor(context.sections),
    usesNetwork: true,
    sections: [mcpServersSection.key],
    describe: () => ({ effects: [{ operation: KIND, access: ACCESS }] }),
    dispatch: (context) => call(context, clientVersion),
  };
}

async function call(context: DispatchContext<McpCallAction, McpCallInput>, clientVersion: string): Promise<JsonValue> {
  const { input } = context;
  const server = mcpServersSection.read(context.sections)[input.server];
  if (server === undefined) throw new AgentctlError('AGENTCTL_E_TASK_INPUT_INVALID', `MCP server "${input.server}" is not declared in spec.mcpServers`);
  const network = context.network;
  if (network === undefined) throw new AgentctlError('AGENTCTL_E_NETWORK_UNAVAILABLE', `no plugin provides the network client, and task ${context.task.id} calls MCP server ${input.server}`);
  // Header values go on the wire only; the effect records each by its reference and a keyed digest.
  const headers: Record<string, string> = {};
  const recorded: JsonObject = {};
  for (const [name, reference] of Object.entries(server.headers)) {
    headers[name] = context.secrets.value(reference);
    recorded[name] = { secret: reference as JsonObject, digest: context.secrets.digest(reference) };
  }
  const request = {
    operation: KIND,
    input: { server: input.server, url: server.url, protocolVersion: server.protocolVersion, tool: input.tool, arguments: input.arguments as JsonObject, headers: recorded },
    access: ACCESS,
  };
  const repeatable = ['pure', 'idempotent', 'keyed'].includes(context.action.idempotency);
  const endpoint = { name: input.server, url: server.url, protocolVersion: server.protocolVersion, timeoutMs: server.timeoutSeconds * 1000, headers, clientVersion, repeatable };
  const result = await context.effect(request, (signal) => new McpCall(network, endpoint, signal, (text, options) => context.redact(text, options)).callTool(input.tool, input.arguments as JsonObject));
  return outputOf(result);
}

/** The task output: the tool's structured result when it gives one, else its content blocks. */
export function outputOf(result: JsonObject): JsonValue {
  if (result.structuredContent !== undefined) return result.structuredContent;
  return result.content ?? null;
}
