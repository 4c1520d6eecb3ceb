// The `spec.mcpServers` section (the reference format's McpServerDefinition) and the fields of an mcp.call action and
// task. A task's `server` must name a declared server: the input schema is built from the plan's section.
import { z } from 'zod';
import { defineSpecSection, secretReferenceSchema, type SecretReference, type SpecSectionValues } from '@agentctl/sdk';

/** The MCP protocol revision agentctl speaks (Streamable HTTP). */
export const MCP_PROTOCOL_VERSION = '2025-11-25';

/** Headers the client sets itself: a server entry may not override them. */
const PROTOCOL_HEADERS = new Set(['accept', 'content-type', 'content-length', 'host', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id']);

const headerName = z
  .string()
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/, 'a header name is an HTTP token (letters, digits and !#$%&\'*+.^_`|~-)')
  .refine((name) => !PROTOCOL_HEADERS.has(name.toLowerCase()), { message: 'this header is set by the MCP client itself' });

const httpUrl = z
  .string()
  .refine((text) => {
    try {
      const url = new URL(text);
      return url.protocol === 'http:' || url.protocol === 'https:';
    } catch {
      return false;
    }
  }, 'url must be an absolute http or https URL');

export const mcpServerSchema = z.strictObject({
  url: httpUrl.describe("The server's Streamable HTTP endpoint (one URL for every JSON-RPC message); the network policy must allow it."),
  headers: z
    .record(headerName, secretReferenceSchema)
    .default({})
    .describe('Request headers (e.g. Authorization), each a secret reference resolved in preflight; never recorded, always redacted.'),
  timeoutSeconds: z.number().int().min(1).max(86400).default(120).describe('Bounds each HTTP exchange with the server; the task timeout also applies.'),
  protocolVersion: z.string().min(1).default(MCP_PROTOCOL_VERSION).describe('The protocol revision sent in initialize; the server must answer with the same one.'),
});

export type McpServer = z.output<typeof mcpServerSchema>;

const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const mcpServersSection = defineSpecSection({
  key: 'mcpServers',
  description: 'MCP servers that mcp.call tasks reach over Streamable HTTP, by name.',
  schema: z
    .record(z.string().regex(SERVER_NAME, 'an MCP server name is 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit'), mcpServerSchema)
    .default({}),
  secretReferences: (servers) =>
    Object.entries(servers).flatMap(([name, server]) =>
      Object.entries(server.headers).map(([header, reference]) => ({ reference: reference as SecretReference, where: `spec.mcpServers.${name}.headers.${header}` })),
    ),
  urls: (servers) => Object.entries(servers).map(([name, server]) => ({ url: server.url, where: `spec.mcpServers.${name}.url` })),
});

export const IDEMPOTENCY = ['pure', 'idempotent', 'keyed', 'at_most_once', 'unknown'] as const;

export const mcpCallActionSchema = z.strictObject({
  idempotency: z
    .enum(IDEMPOTENCY)
    .default('unknown')
    .describe('What calling the tool again does: policy, plan, retries and derived runs take the effect to have this idempotency.'),
});

export type McpCallAction = z.output<typeof mcpCallActionSchema>;

const inputFields = (server: z.ZodType<string>) => ({
  server: server.describe('The name of an entry of spec.mcpServers.'),
  tool: z.string().min(1, 'tool must be a non-empty string').describe('The name of the tool to call.'),
  arguments: z.record(z.string(), z.json()).default({}).describe("The tool's arguments: a JSON object."),
});

/** The task input of the kind as a whole (`agentctl schema`): any server name. */
export const mcpCallInputSchema = z.strictObject(inputFields(z.string().min(1)));

export type McpCallInput = z.output<typeof mcpCallInputSchema>;

/** The task input within one plan: `server` must name one of its servers (with a suggestion when it does not). */
export function inputSchemaFor(sections: SpecSectionValues): z.ZodType {
  const names = Object.keys(mcpServersSection.read(sections));
  const server = z
    .string()
    .min(1)
    .superRefine((name, context) => {
      if (names.includes(name)) return;
      const close = names.find((candidate) => nearby(candidate, name));
      const declared = names.length > 0 ? `declared servers: ${names.join(', ')}` : 'spec.mcpServers declares no server';
      context.addIssue({ code: 'custom', message: `unknown MCP server "${name}"; ${close ? `did you mean "${close}"? ` : ''}${declared}` });
    });
  return z.strictObject(inputFields(server));
}

/** Two names a typo apart: edit distance at most 2 (or a third of the longer name). */
function nearby(left: string, right: string): boolean {
  const limit = Math.max(2, Math.floor(Math.max(left.length, right.length) / 3));
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let row = 1; row <= left.length; row += 1) {
    const current = [row];
    for (let column = 1; column <= right.length; column += 1) {
      const cost = left[row - 1]!.toLowerCase() === right[column - 1]!.toLowerCase() ? 0 : 1;
      current[column] = Math.min(previous[column]! + 1, current[column - 1]! + 1, previous[column - 1]! + cost);
    }
    previous = current;
  }
  return previous[right.length]! <= limit;
}
