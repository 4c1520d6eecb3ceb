// `${{ [not] PATH [OP LITERAL] }}` templates: parsing at compile time, rendering at run time.
import { isDeepStrictEqual } from 'node:util';
import type { JsonValue } from '@agentctl/sdk';

export const TEMPLATE_ROOTS = ['inputs', 'vars', 'memory', 'tasks'] as const;
export type TemplateRoot = (typeof TEMPLATE_ROOTS)[number];

const OPERATORS = ['==', '!=', '<=', '>=', '<', '>'] as const;
type Operator = (typeof OPERATORS)[number];

export interface Expression {
  readonly source: string;
  readonly negate: boolean;
  readonly path: readonly string[];
  readonly comparison?: { readonly operator: Operator; readonly literal: JsonValue };
}

export type TemplateSegment = { readonly text: string } | { readonly expression: Expression };

export interface ParsedTemplate {
  /** Set when the string is exactly one template: the value keeps its JSON type. */
  readonly whole?: Expression;
  readonly segments: readonly TemplateSegment[];
}

export class TemplateError extends Error {}

const OPEN = '${{';
const CLOSE = '}}';
const PATH = /^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*$/;

export function hasTemplate(text: string): boolean {
  return text.includes(OPEN);
}

/** Parses every template in a string; throws TemplateError with a precise message. */
export function parseTemplate(text: string): ParsedTemplate {
  const segments: TemplateSegment[] = [];
  let cursor = 0;
  while (cursor < text.length) {
    const open = text.indexOf(OPEN, cursor);
    if (open < 0) {
      segments.push({ text: text.slice(cursor) });
      break;
    }
    if (open > cursor) segments.push({ text: text.slice(cursor, open) });
    const close = text.indexOf(CLOSE, open + OPEN.length);
    if (close < 0) throw new TemplateError(`unclosed template starting at character ${open + 1}: missing "}}"`);
    segments.push({ expression: parseExpression(text.slice(open + OPEN.length, close)) });
    cursor = close + CLOSE.length;
  }
  const only = segments.length === 1 ? segments[0] : undefined;
  return only && 'expression' in only ? { whole: only.expression, segments } : { segments };
}

function parseExpression(raw: string): Expression {
  const source = raw.trim();
  if (source === '') throw new TemplateError('empty template: expected a path such as inputs.name');
  let rest = source;
  let negate = false;
  if (/^not\s/.test(rest)) {
    negate = true;
    rest = rest.slice(3).trim();
  }
  const operatorMatch = /\s*(==|!=|<=|>=|<|>)\s*/.exec(rest);
  const pathText = operatorMatch ? rest.slice(0, operatorMatch.index).trim() : rest;
  if (!PATH.test(pathText)) {
    throw new TemplateError(`"${source}" is not [not] PATH [OP LITERAL]: "${pathText}" is not a dotted path (no functions, no indexing)`);
  }
  const path = pathText.split('.');
  if (!(TEMPLATE_ROOTS as readonly string[]).includes(path[0]!)) {
    throw new TemplateError(`path "${pathText}" must start with one of ${TEMPLATE_ROOTS.join(', ')}`);
  }
  if (!operatorMatch) return { source, negate, path };
  const literalText = rest.slice(operatorMatch.index + operatorMatch[0].length).trim();
  return { source, negate, path, comparison: { operator: operatorMatch[1] as Operator, literal: parseLiteral(literalText, source) } };
}

function parseLiteral(text: string, source: string): JsonValue {
  if (/^'[^']*'$/.test(text)) return text.slice(1, -1);
  try {
    const value = JSON.parse(text) as unknown;
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) return value as JsonValue;
  } catch {
    // fall through to the error below
  }
  throw new TemplateError(`"${source}": "${text}" is not a literal (number, 'string', "string", true, false or null)`);
}

/** Values a template may read. `tasks` maps a task id to `{ output }`. */
export interface TemplateScope {
  readonly inputs: Readonly<Record<string, JsonValue>>;
  readonly vars: Readonly<Record<string, JsonValue>>;
  readonly memory: Readonly<Record<string, JsonValue>>;
  readonly tasks: Readonly<Record<string, { readonly output: JsonValue }>>;
}

export function evaluate(expression: Expression, scope: TemplateScope): JsonValue {
  let value: unknown = scope;
  for (let index = 0; index < expression.path.length; index += 1) {
    const key = expression.path[index]!;
    if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.hasOwn(value, key)) {
      throw new TemplateError(`"${expression.path.slice(0, index + 1).join('.')}" does not exist (in "${expression.source}")`);
    }
    value = (value as Record<string, unknown>)[key];
  }
  let result = value as JsonValue;
  if (expression.comparison) result = compare(result, expression.comparison.operator, expression.comparison.literal, expression.source);
  if (expression.negate) {
    if (typeof result !== 'boolean') throw new TemplateError(`"not" needs a boolean, "${expression.path.join('.')}" is ${describe(result)}`);
    result = !result;
  }
  return result;
}

function compare(left: JsonValue, operator: Operator, right: JsonValue, source: string): boolean {
  if (operator === '==') return isDeepStrictEqual(left, right);
  if (operator === '!=') return !isDeepStrictEqual(left, right);
  const comparable = (typeof left === 'number' && typeof right === 'number') || (typeof left === 'string' && typeof right === 'string');
  if (!comparable) throw new TemplateError(`"${source}" compares ${describe(left)} with ${describe(right)}; ${operator} needs two numbers or two strings`);
  const [a, b] = [left as number | string, right as number | string];
  switch (operator) {
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    default:
      return a >= b;
  }
}

function describe(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `the ${typeof value} ${JSON.stringify(value)}`;
}

/** Renders one string: a whole template keeps its type; inside text only scalars render. */
export function renderString(text: string, scope: TemplateScope, parsed: ParsedTemplate = parseTemplate(text)): JsonValue {
  if (parsed.whole) return evaluate(parsed.whole, scope);
  let out = '';
  for (const segment of parsed.segments) {
    if ('text' in segment) {
      out += segment.text;
      continue;
    }
    const value = evaluate(segment.expression, scope);
    if (value !== null && typeof value === 'object') {
      throw new TemplateError(`"${segment.expression.source}" is ${describe(value)}; only scalars render inside text (make the template the whole string to pass it on)`);
    }
    out += value === null ? 'null' : String(value);
  }
  return out;
}

/** Renders every string in a JSON value; `renderText` may replace how one template string is rendered. */
export function renderValue(value: JsonValue, scope: TemplateScope, renderText: (text: string, scope: TemplateScope) => JsonValue = renderString): JsonValue {
  if (typeof value === 'string') return hasTemplate(value) ? renderText(value, scope) : value;
  if (Array.isArray(value)) return value.map((item) => renderValue(item, scope, renderText));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, renderValue(item, scope, renderText)]));
  }
  return value;
}

/** Every template string inside a JSON value, with its path relative to the value. */
export function* templateStrings(value: unknown, path: (string | number)[] = []): Generator<{ text: string; path: (string | number)[] }> {
  if (typeof value === 'string') {
    if (hasTemplate(value)) yield { text: value, path };
  } else if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) yield* templateStrings(value[index], [...path, index]);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) yield* templateStrings(item, [...path, key]);
  }
}
