// Run inputs from --inputs, --inputs-file and repeated --input KEY=VALUE (later sources win); variable overrides from
// repeated --vars-file FILE and --var KEY=JSON (every --var wins over every file).
import { dirname, resolve } from 'node:path';
import { checkDepth, MAX_DEPTH, readBoundedFile, STDIN_ARGUMENT } from '../compiler/source.js';
import { readVarOverrides, type VarsOptions } from '../compiler/vars-files.js';
import { AgentctlError, errorMessage, type JsonValue } from '@agentctl/sdk';

export interface InputArgs {
  input?: string | string[];
  inputs?: string;
  'inputs-file'?: string;
  'vars-file'?: string | string[];
  var?: string | string[];
}

/**
 * The --vars-file and --var overrides. Files are named from the current folder and must lie inside the workspace
 * (--workspace, or the workflow file's folder).
 */
export function collectVars(argv: InputArgs & { file?: string; workspace?: string }): VarsOptions {
  const files = ([] as string[]).concat(argv['vars-file'] ?? []);
  const pairs = ([] as string[]).concat(argv.var ?? []);
  if (files.length === 0 && pairs.length === 0) return {};
  const root = resolve(argv.workspace ?? (argv.file === undefined || argv.file === STDIN_ARGUMENT ? '.' : dirname(resolve(argv.file))));
  return { overrides: readVarOverrides(files, pairs, root) };
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
  // JSON.parse keeps the last of two equal keys; a document that says two things is refused instead.
  const duplicate = duplicateKey(text);
  if (duplicate !== undefined) {
    throw new AgentctlError('AGENTCTL_E_INPUT_INVALID', `${what}: the key ${JSON.stringify(duplicate)} appears twice in one object`, { help: 'give each key once' });
  }
  // Own keys only, copied one by one: a "__proto__" key must be refused, not merged into a prototype.
  const bad = Object.keys(value).filter((key) => !KEY.test(key));
  if (bad.length > 0) throw new AgentctlError('AGENTCTL_E_INPUT_INVALID', `${what}: ${bad.map((key) => JSON.stringify(key)).join(', ')} is not a valid input name`);
  checkValue(value, what);
  return value as Record<string, JsonValue>;
}

/** Deeper than 64 levels, or a number JSON cannot carry (1e999 parses as Infinity), is refused. */
function checkValue(value: unknown, what: string): void {
  try {
    checkDepth(value, MAX_DEPTH);
  } catch (error) {
    throw new AgentctlError('AGENTCTL_E_INPUT_INVALID', `${what}: ${errorMessage(error)}`);
  }
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'number' && !Number.isFinite(item)) {
      throw new AgentctlError('AGENTCTL_E_INPUT_INVALID', `${what}: a number is not finite (it overflows a 64-bit float, e.g. 1e999)`, { help: 'pass a number between -1.7976931348623157e308 and 1.7976931348623157e308, or quote it to pass a string' });
    }
    if (item !== null && typeof item === 'object') stack.push(...Object.values(item));
  }
}

/** The first key that appears twice in one object of a valid JSON text, compared after unescaping. */
export function duplicateKey(text: string): string | undefined {
  const objects: { keys: Set<string> }[] = [];
  const containers: ('object' | 'array')[] = [];
  let expectKey = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index]!;
    if (char === '{') {
      containers.push('object');
      objects.push({ keys: new Set() });
      expectKey = true;
    } else if (char === '[') {
      containers.push('array');
    } else if (char === '}' || char === ']') {
      if (containers.pop() === 'object') objects.pop();
      expectKey = false;
    } else if (char === ',') {
      expectKey = containers[containers.length - 1] === 'object';
    } else if (char === '"') {
      let end = index + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      if (expectKey) {
        const key = JSON.parse(text.slice(index, end + 1)) as string;
        const keys = objects[objects.length - 1]!.keys;
        if (keys.has(key)) return key;
        keys.add(key);
        expectKey = false;
      }
      index = end;
    }
  }
  return undefined;
}
