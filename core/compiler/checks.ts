// The compiler's checks of one value at a time: a task's input against its kind, templates and the references they
// make, output schemas. Each reports through `report`; none stops at the first problem.
import { errorMessage, jsonSchemaValidator, type Diagnostic, type JsonValue, type SpecSectionValues } from '@agentctl/sdk';
import { inputSchemaOf } from '../action-shape.js';
import type { Host } from '../host.js';
import type { Envelope } from './envelope.js';
import { fieldsAt, isMissing } from './issues.js';
import type { WorkflowParts } from './partial.js';
import { formatPath, type PathSegment } from './source.js';
import { closest, listNames } from './suggest.js';
import { parseTemplate, TemplateError, templateStrings, type Expression } from './templates.js';

export type Report = (code: Diagnostic['code'], path: PathSegment[], message: string, help?: string) => void;

/**
 * Checks a task's `with` against its kind's input schema before anything runs. A value a template will supply is
 * unknown until run time, so problems at or below a template are left to run time; everything else (an unknown
 * field, a missing one, a wrong static value) is reported now: `check` catches what `run` would refuse.
 */
export function checkInput(host: Host, action: { kind: string; fields: unknown }, input: unknown, templatePaths: readonly PathSegment[][], path: PathSegment[], report: Report, sections: SpecSectionValues = {}): void {
  const kindName = action.kind;
  const schema = inputSchemaOf(host.actionKind(kindName)!, action.fields, sections);
  const parsed = schema.safeParse(input);
  if (parsed.success) return;
  const dynamic = (issuePath: readonly PathSegment[]) => templatePaths.some((template) => template.every((segment, index) => issuePath[index] === segment));
  for (const issue of parsed.error.issues) {
    const relative = issue.path as PathSegment[];
    if (dynamic(relative)) continue;
    if (issue.code === 'unrecognized_keys') {
      const known = fieldsAt(schema, relative);
      for (const key of issue.keys) {
        const where = [...path, ...relative, key];
        const near = closest(key, known);
        const allowed = known.length > 0 ? `${kindName} takes ${known.join(', ')}` : `${kindName} takes no input fields`;
        report('AGENTCTL_E_UNKNOWN_FIELD', where, `unknown field "${key}" in ${formatPath([...path, ...relative])} (input of ${kindName})`, `${near ? `did you mean "${near}"? ` : ''}${allowed}`);
      }
      continue;
    }
    const where = [...path, ...relative];
    const message = isMissing(input, relative) ? `${formatPath(where.slice(0, -1))}: missing required field "${String(where[where.length - 1])}"` : `${formatPath(where)}: ${issue.message}`;
    report('AGENTCTL_E_SCHEMA', where, `${message} (input of ${kindName})`, `see the ${kindName} input fields in \`agentctl schema\``);
  }
}

export function checkOutputSchema(schema: JsonValue, path: PathSegment[], report: Report): void {
  try {
    jsonSchemaValidator(schema);
  } catch (error) {
    report('AGENTCTL_E_SCHEMA', path, `outputSchema is not a valid JSON Schema: ${errorMessage(error)}`);
  }
}

export function checkOutputs({ envelope, ids }: WorkflowParts, report: Report): void {
  const scope: ReferenceScope = { ...workflowNames(envelope), needs: ids, taskIds: ids, owner: 'spec.outputs' };
  for (const template of templateStrings(envelope.spec.outputs)) checkTemplate(template.text, ['spec', 'outputs', ...template.path], scope, report);
}

export interface ReferenceScope {
  /** Input names templates may read, and where they are declared (for the message). */
  readonly inputs: ReadonlySet<string>;
  readonly inputsDeclared: string;
  /** Var names: spec.vars, the task's own vars and its expansion bindings. */
  readonly vars: ReadonlySet<string>;
  readonly needs: ReadonlySet<string>;
  readonly taskIds: ReadonlySet<string>;
  readonly owner: string;
}

export function checkTemplate(text: string, path: PathSegment[], scope: ReferenceScope, report: Report) {
  let parsed;
  try {
    parsed = parseTemplate(text);
  } catch (error) {
    if (!(error instanceof TemplateError)) throw error;
    report('AGENTCTL_E_TEMPLATE_SYNTAX', path, `bad template: ${error.message}`, 'templates are ${{ [not] PATH [OP LITERAL] }} with PATH rooted at inputs., vars., memory. or tasks.ID.output.');
    return undefined;
  }
  for (const segment of parsed.segments) {
    if ('expression' in segment) checkReference(segment.expression, path, scope, report);
  }
  return parsed;
}

function checkReference(expression: Expression, path: PathSegment[], scope: ReferenceScope, report: Report): void {
  const [root, name, third] = expression.path;
  if (root === 'inputs' && (name === undefined || !scope.inputs.has(name))) {
    report('AGENTCTL_E_TEMPLATE_REFERENCE', path, `"${expression.source}": inputs.${name ?? ''} is not declared in ${scope.inputsDeclared}`);
  } else if (root === 'vars' && (name === undefined || !scope.vars.has(name))) {
    report('AGENTCTL_E_TEMPLATE_REFERENCE', path, `"${expression.source}": vars.${name ?? ''} is not declared in spec.vars or the task's vars`);
  } else if (root === 'memory' && name === undefined) {
    // Which keys a read may name depends on the task graph: compileMemory (memory.ts) checks them once it is known.
    report('AGENTCTL_E_TEMPLATE_REFERENCE', path, `"${expression.source}": memory references have the form memory.KEY[.FIELD...]`);
  } else if (root === 'tasks') {
    if (name === undefined || third !== 'output') {
      report('AGENTCTL_E_TEMPLATE_REFERENCE', path, `"${expression.source}": task references have the form tasks.ID.output[.FIELD...]`);
    } else if (!scope.taskIds.has(name)) {
      report('AGENTCTL_E_TEMPLATE_REFERENCE', path, `"${expression.source}": there is no task "${name}"`);
    } else if (!scope.needs.has(name)) {
      report('AGENTCTL_E_TEMPLATE_REFERENCE', path, `"${expression.source}": ${scope.owner} reads tasks.${name} but does not list it in needs`, `add "${name}" to needs`);
    }
  }
}

/** The inputs and vars a top-level template may read. */
export function workflowNames(envelope: Envelope): Pick<ReferenceScope, 'inputs' | 'inputsDeclared' | 'vars'> {
  return { inputs: new Set(Object.keys(envelope.spec.inputs)), inputsDeclared: 'spec.inputs', vars: new Set(Object.keys(envelope.spec.vars)) };
}

/** "did you mean X?" when a known name is close, then the known names. */
export function suggestion(name: string, known: Iterable<string>, what: string, prefix = ''): string {
  const names = [...known];
  const close = closest(name, names);
  return `${close === undefined ? '' : `did you mean ${prefix}${close}? `}${what}: ${listNames(names)}`;
}
