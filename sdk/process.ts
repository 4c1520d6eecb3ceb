// The author's side of agentctl.dev/process-extension/v1 for a Node script: `serveExtension` answers the two
// launches agentctl makes (`--agentctl-handshake`, then `--agentctl-invoke` with the request on stdin). It imports
// nothing, not even node: modules by name, so a copy of the compiled file runs wherever node runs (e.g. inside a
// container image next to the script).

/** The protocol version an extension answers in its handshake (`protocolVersion` of the action). */
export const PROCESS_EXTENSION_PROTOCOL = 'agentctl.dev/process-extension/v1';

/** Requests larger than this are refused: agentctl's own input is far smaller. */
const MAX_REQUEST_BYTES = 64 * 1024 * 1024;

/** What an invocation is told besides its input. */
export interface InvocationContext {
  /** The effect id agentctl recorded before launching; stable across resumes, e.g. a key to recognise a repeat. */
  readonly effectId: string;
}

/** What `serveExtension` needs: the extension's declaration (as its action declares it) and the invocation itself. */
export interface ExtensionDefinition<Input = any, Output = unknown> {
  /** The extension's name, reported in the handshake. */
  readonly name: string;
  /** Exactly the action's inputSchema, outputSchema and capabilities (in order): agentctl compares them. */
  readonly inputSchema: unknown;
  readonly outputSchema: unknown;
  readonly capabilities?: readonly string[];
  /** Performs one invocation; agentctl has already checked the input against inputSchema. */
  invoke(input: Input, context: InvocationContext): Output | Promise<Output>;
}

/**
 * Answers the launch this process is: the last command-line argument names it. Bad usage, a malformed request and
 * an error thrown by `invoke` end the process with a non-zero status and a message on stderr.
 */
export async function serveExtension<Input = any, Output = unknown>(definition: ExtensionDefinition<Input, Output>): Promise<void> {
  const mode = process.argv[process.argv.length - 1];
  try {
    if (mode === '--agentctl-handshake') {
      const { name, inputSchema, outputSchema, capabilities = [] } = definition;
      process.stdout.write(`${JSON.stringify({ protocolVersion: PROCESS_EXTENSION_PROTOCOL, name, inputSchema, outputSchema, capabilities })}\n`);
      return;
    }
    if (mode !== '--agentctl-invoke') {
      process.stderr.write(`${definition.name}: an agentctl process extension; run it with --agentctl-handshake or --agentctl-invoke as the last argument\n`);
      process.exitCode = 2;
      return;
    }
    const request = parseRequest(await readStdin());
    const output = await definition.invoke(request.input as Input, { effectId: request.effectId });
    process.stdout.write(`${JSON.stringify({ protocolVersion: PROCESS_EXTENSION_PROTOCOL, effectId: request.effectId, output })}\n`);
  } catch (error) {
    process.stderr.write(`${definition.name}: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}

function parseRequest(text: string): { effectId: string; input: unknown } {
  let request: unknown;
  try {
    request = JSON.parse(text);
  } catch (error) {
    throw new Error(`the request on stdin is not JSON (${(error as Error).message})`);
  }
  const { protocolVersion, effectId, input } = (request ?? {}) as Record<string, unknown>;
  if (protocolVersion !== PROCESS_EXTENSION_PROTOCOL) throw new Error(`the request speaks ${JSON.stringify(protocolVersion)}, not ${PROCESS_EXTENSION_PROTOCOL}`);
  if (typeof effectId !== 'string' || effectId.length === 0) throw new Error('the request has no effectId');
  return { effectId, input };
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_REQUEST_BYTES) throw new Error(`the request on stdin is larger than ${MAX_REQUEST_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
