// Run inputs from --inputs, --inputs-file and repeated --input KEY=VALUE (later sources win).
import { checkDepth, MAX_DEPTH, readBoundedFile } from '../compiler/source.js';
import { AgentctlError, errorMessage, type JsonValue } from '../../sdk/index.js';

export interface InputArgs {
  input?: string | string[];
  inputs?: string;
  'inputs-file'?: string;
}

const KEY = /^[A-Za-z][A-Za-z0-9_-]*$/;

export function collectInputs(argv: InputArgs): Record<string, JsonValue> {
  const merged: Record<string, JsonValue> = {};
  if (argv['inputs-file'] !== undefined) Object.assign(merged, parseObject(readBoundedFile(argv['inputs-file'], 'inputs file'), `--inputs-file ${argv['inputs-file']}`));
  if (argv.inputs !== undefined) Object.assign(merged, parseObject(argv.inputs, '--inputs'));
  for (const pair of ([] as string[]).concat(argv.input ?? [])) {
    const equals = pair.indexOf('=');
    const key = equals < 0 ? pair : pair.slice(0, equals);
    if (equals < 0 || !KEY.test(key)) {
      throw new AgentctlError('AGENTCTL_E_INPUT_INVALID', `--input ${JSON.stringify(pair)} is not KEY=VALUE with KEY a valid input name`, { help: 'example: --input reportPath=out/r.txt' });
    }
    merged[key] = parseValue(pair.slice(equals + 1));
    checkValue(merged[key], `--input ${key}`);
  }
  return merged;
}

/** VALUE is JSON when it parses as JSON, otherwise the string itself. */
function parseValue(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

function parseObject(text: string, what: string): Record<string, JsonValue> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new AgentctlError('AGENTCTL_E_INPUT_INVALID', `${what} is not valid JSON: ${errorMessage(error)}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new AgentctlError('AGENTCTL_E_INPUT_INVALID', `${what} must be a JSON object of input names to values`);
  }
  // Own keys only, copied one by one: a "__proto__" key must be refused, not merged into a prototype.
  const bad = Object.keys(value).filter((key) => !KEY.test(key));
  if (bad.length > 0) throw new AgentctlError('AGENTCTL_E_INPUT_INVALID', `${what}: ${bad.map((key) => JSON.stringify(key)).join(', ')} is not a valid input name`);
  checkValue(value, what);
  return value as Record<string, JsonValue>;
}

function checkValue(value: unknown, what: string): void {
  try {
    checkDepth(value, MAX_DEPTH);
  } catch (error) {
    throw new AgentctlError('AGENTCTL_E_INPUT_INVALID', `${what}: ${errorMessage(error)}`);
  }
}
