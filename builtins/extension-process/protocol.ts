// The documents of agentctl.dev/process-extension/v1 as agentctl reads them: the handshake, which must confirm the
// action's declaration exactly, and the response, which must answer this effect. Each reader returns a problem in
// words (or the value); the plugin decides the outcome.
import { JsonDepthError, parseJsonAnswer, type JsonObject, type JsonValue } from '@agentctl/sdk';
import { PROTOCOL_VERSION, type ExtensionProcessAction } from './schema.js';

/** The text as exactly one JSON object, or why it is not one. */
export function oneObject(text: string): { object: JsonObject } | { problem: string } {
  const trimmed = text.trim();
  if (!trimmed) return { problem: 'printed nothing on stdout' };
  let value: unknown;
  try {
    // JSON.parse refuses anything after the first value, so two documents are malformed too.
    value = parseJsonAnswer(trimmed);
  } catch (error) {
    if (error instanceof JsonDepthError) return { problem: `printed JSON nested more than ${error.limit} levels deep on stdout` };
    return { problem: `did not print one JSON document on stdout (${(error as Error).message})` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { problem: `printed a JSON ${value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value}, not an object` };
  return { object: value as JsonObject };
}

/** Shortens remote text for a message; the plugin's is the run's redactor with a limit (redacts, then cuts). */
export type Shorten = (text: string) => string;

/**
 * What differs between the handshake and the action's declaration, in words, or undefined when it confirms it:
 * the protocol version, both schemas (compared as JSON values: key order does not matter) and the ordered
 * capabilities. Other fields of the handshake are not read.
 */
export function handshakeDifference(handshake: JsonObject, action: ExtensionProcessAction, shorten: Shorten): string | undefined {
  if (handshake.protocolVersion !== PROTOCOL_VERSION) return `protocolVersion is ${shorten(JSON.stringify(handshake.protocolVersion ?? null))}, not "${PROTOCOL_VERSION}"`;
  if (typeof handshake.name !== 'string' || handshake.name.length === 0) return 'name is missing (a non-empty string)';
  for (const field of ['inputSchema', 'outputSchema', 'capabilities'] as const) {
    if (!(field in handshake)) return `${field} is missing`;
    const difference = firstDifference(action[field] as JsonValue, handshake[field]!, '', shorten);
    if (difference !== undefined) return `${field} differs ${difference}`;
  }
  return undefined;
}

/** Where two JSON values first differ, as `at /pointer: ...`, or undefined when they are equal. */
export function firstDifference(declared: JsonValue, answered: JsonValue, pointer: string, shorten: Shorten): string | undefined {
  const brief = (value: JsonValue) => shorten(JSON.stringify(value));
  const at = pointer || '/';
  if (Array.isArray(declared) && Array.isArray(answered)) {
    for (let index = 0; index < Math.max(declared.length, answered.length); index += 1) {
      if (index >= declared.length) return `at ${pointer}/${index}: the extension has an extra item ${brief(answered[index]!)}`;
      if (index >= answered.length) return `at ${pointer}/${index}: the extension lacks ${brief(declared[index]!)}`;
      const difference = firstDifference(declared[index]!, answered[index]!, `${pointer}/${index}`, shorten);
      if (difference !== undefined) return difference;
    }
    return undefined;
  }
  if (isObject(declared) && isObject(answered)) {
    for (const key of [...new Set([...Object.keys(declared), ...Object.keys(answered)])].sort()) {
      const where = `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
      if (!(key in answered)) return `at ${where}: the extension lacks it (the action declares ${brief(declared[key]!)})`;
      if (!(key in declared)) return `at ${where}: the action does not declare it (the extension has ${brief(answered[key]!)})`;
      const difference = firstDifference(declared[key]!, answered[key]!, where, shorten);
      if (difference !== undefined) return difference;
    }
    return undefined;
  }
  if (declared === answered) return undefined;
  return `at ${at}: the action declares ${brief(declared)}, the extension ${brief(answered)}`;
}

const isObject = (value: JsonValue): value is JsonObject => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Why the response does not answer this effect, or undefined when it does (its `output` is then the task output). */
export function responseProblem(response: JsonObject, effectId: string, shorten: Shorten): string | undefined {
  if (response.protocolVersion !== PROTOCOL_VERSION) return `its protocolVersion is ${shorten(JSON.stringify(response.protocolVersion ?? null))}, not "${PROTOCOL_VERSION}"`;
  if (response.effectId !== effectId) return `it answers effect ${shorten(JSON.stringify(response.effectId ?? null))}, not ${effectId}`;
  if (!('output' in response)) return 'it has no output';
  return undefined;
}
