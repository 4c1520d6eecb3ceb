// Reading agentctl's output as a CI job does: with --output json a stream holds exactly one single-line JSON document
// of the expected kind, valid against that kind's published schema. Anything else — a second line, progress text,
// a partial document, another kind — fails the step that read it.

export const CLI_API_VERSION = 'agentctl.dev/cli/v1';

/**
 * The one document of a stream.
 * @param {string} text everything the stream carried
 * @param {object} options
 * @param {string} options.kind the kind the document must have
 * @param {(kind: string) => ({ safeParse(value: unknown): { success: boolean, error?: unknown } } | undefined)} options.schemaFor
 *   the published schema of a kind (`cliDocumentSchema`), or undefined for a kind agentctl does not print
 * @param {string} [options.stream] the stream's name, for messages
 * @returns {any} the parsed document
 */
export function parseOneDocument(text, { kind, schemaFor, stream = 'stdout' }) {
  if (text === '') throw new Error(`${stream} is empty; expected one ${kind} document`);
  if (!text.endsWith('\n')) throw new Error(`${stream} does not end with a newline: ${excerpt(text)}`);
  const body = text.slice(0, -1);
  if (body.includes('\n')) {
    const lines = body.split('\n').length;
    throw new Error(`${stream} holds ${lines} lines; expected exactly one JSON document: ${excerpt(text)}`);
  }
  let document;
  try {
    document = JSON.parse(body);
  } catch (error) {
    throw new Error(`${stream} is not one JSON document (${error.message}): ${excerpt(text)}`);
  }
  if (document === null || typeof document !== 'object' || Array.isArray(document)) {
    throw new Error(`${stream} holds JSON that is not an object: ${excerpt(text)}`);
  }
  if (document.apiVersion !== CLI_API_VERSION) {
    throw new Error(`${stream}'s document has apiVersion ${JSON.stringify(document.apiVersion)}, not ${CLI_API_VERSION}`);
  }
  if (document.kind !== kind) {
    throw new Error(`${stream}'s document is a ${JSON.stringify(document.kind)}, not a ${kind}: ${excerpt(text)}`);
  }
  const schema = schemaFor(kind);
  if (!schema) throw new Error(`${kind} has no published schema`);
  const parsed = schema.safeParse(document);
  if (!parsed.success) throw new Error(`${stream}'s ${kind} does not match its published schema: ${String(parsed.error).slice(0, 1500)}`);
  return document;
}

/** The start of a text, for a message. */
function excerpt(text) {
  return JSON.stringify(text.length > 600 ? `${text.slice(0, 600)}…` : text);
}

/**
 * The SDK's `cliDocumentSchema`, from the built SDK package the CLI depends on (`@agentctl/sdk/documents`).
 * @returns {Promise<(kind: string) => any>}
 */
export async function loadSchemas() {
  try {
    return (await import('@agentctl/sdk/documents')).cliDocumentSchema;
  } catch (error) {
    throw new Error(`cannot load the SDK's document schemas (@agentctl/sdk/documents; run npm run build first): ${error.message}`);
  }
}
