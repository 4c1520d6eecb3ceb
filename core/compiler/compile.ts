// Workflow compiler: source → validated envelope → action fields → templates → graph → compiled plan.
import { createHash } from 'node:crypto';
import { AgentctlError, diagnostic, errorMessage, isAgentctlError, type ActionDescription, type CompiledAction, type CompiledPlan, type CompiledTask, type Diagnostic, type JsonValue, type SpecSectionValues } from '@agentctl/sdk';
import { inputSchemaOf, profileOf } from '../action-shape.js';
import type { Host } from '../host.js';
import { compileAgents } from './agents.js';
import { checkBudgets } from './budgets.js';
import type { SubworkflowDocument } from './envelope.js';
import { compileLongTermMemory } from './long-term-memory.js';
import { hostEnvelope, sectionValues } from './sections.js';
import { topologicalOrder } from './graph.js';
import { fieldsAt, issuesToDiagnostics, unknownField } from './issues.js';
import { checkOutputs, suggestion, type Report } from './checks.js';
import { expandTasks, type Expanded } from './expand.js';
import { checkDefinition, checkLevel, levelsOf, type Level } from './tasks.js';
import { flowAction } from './flow-action.js';
import { compileMemory } from './memory.js';
import { completeParts, salvageParts, type WorkflowParts } from './partial.js';
import { formatPath, parseSource, readBoundedFile, type PathSegment, type SourceDocument } from './source.js';
import { hasTemplate, templateStrings } from './templates.js';
import { parseWithPlainText } from './plain-scalars.js';
import { filesVars, layerVars, storedVars, varsDigestInput, withStoredVars, type VarsOptions } from './vars-files.js';
import { loadDeclarativePacks, type LoadedPack, type PackLoadOptions } from './packs/load.js';
import { withPacks } from './packs/inject.js';

export interface CompileOptions {
  /** Input values that override the declared defaults (already merged from the CLI). */
  readonly inputs?: Readonly<Record<string, JsonValue>>;
  /** How declarative packs load (`--locked`, `--offline`). */
  readonly packs?: PackLoadOptions;
  /** `--vars-file`/`--var` overrides, or the capture of a recorded run (then no variable file is read). */
  readonly vars?: VarsOptions;
}

export interface CompileResult {
  readonly plan: CompiledPlan;
  readonly source: SourceDocument;
  /** The declarative packs the workflow loaded, in name order. */
  readonly packs: readonly LoadedPack[];
  /** Problems that do not stop the workflow (an unsigned pack under packTrust.unsigned: warn, ...). */
  readonly warnings: readonly Diagnostic[];
}

export async function compileFile(host: Host, file: string, options: CompileOptions = {}): Promise<CompileResult> {
  return compileText(host, file, readBoundedFile(file, 'workflow file'), options);
}

export async function compileText(host: Host, file: string, text: string, options: CompileOptions = {}): Promise<CompileResult> {
  const source = parseSource(file, text);
  const diagnostics: Diagnostic[] = [];
  const report = (code: Diagnostic['code'], path: PathSegment[], message: string, help?: string) =>
    diagnostics.push(diagnostic(code, { message, file, ...source.locate(path), path: formatPath(path), ...(help ? { help } : {}) }));

  // Declarative packs join the document as PACK.ITEM entries before anything else reads it.
  const load = loadDeclarativePacks(file, source.value, options.packs ?? {}, processKinds(host));
  // A string field written as a plain scalar YAML reads as another type (`true`, `1.10`) takes the scalar's text.
  const envelopeSchema = hostEnvelope(host);
  const { result: parsed, value: document } = parseWithPlainText(envelopeSchema, withPacks(source.value, load.packs, file), source.plainText);
  // One pass: a document that fails the envelope schema is still checked part by part (actions, tasks, templates).
  if (!parsed.success) diagnostics.push(...issuesToDiagnostics(parsed.error.issues, source, [], envelopeSchema));
  const { sections, unreadable } = sectionValues(host, document, parsed.success ? (parsed.data.spec as Record<string, unknown>) : undefined);
  const unlayered = { ...(parsed.success ? completeParts(parsed.data) : salvageParts(document)), sections, unreadableSections: unreadable };
  const layered = layerVars(file, unlayered, options.vars ?? {}, report);
  const parts = layered.parts;
  const envelope = parts.envelope;

  const declaredActions = compileActions(host, source, document, sections, diagnostics, report);
  const agents = compileAgents(host, parts, declaredActions, report);
  const actions = { ...declaredActions, ...agents.actions };
  checkTemplatePlacement(source, document, diagnostics, report);
  const expanded = compileTasks(host, parts, actions, report);
  checkOutputs(parts, report);
  checkBudgets(parts, { tasks: expanded.tasks.filter((task) => !task.control).length, expansionItems: expanded.expansionItems, loopIterations: expanded.loopIterations }, report);
  const ordered = compileMemory(
    { host, actions, working: envelope.spec.memory.working as Record<string, JsonValue>, maxConcurrency: envelope.spec.runtime.maxConcurrency, outputs: envelope.spec.outputs as Record<string, JsonValue>, sources: expanded.sources, report },
    orderTasks(expanded, report),
  );
  const longTermMemory = compileLongTermMemory(host, envelope, report);
  const flowActions = Object.fromEntries(ordered.filter((task) => task.control).map((task) => [task.action, flowAction(task.control!.type)]));
  if (diagnostics.length > 0) fail(diagnostics, file);
  const inputs = mergeInputs(envelope.spec.inputs, options.inputs ?? {});
  // Variable files are stored once (capturedVars.contents); tasks and spec.vars name them by digest.
  const contents = layered.captured?.contents;
  const workflowVars = envelope.spec.vars as Record<string, JsonValue>;
  const stored = withStoredVars(contents, new Map());

  const plan: CompiledPlan = {
    apiVersion: envelope.apiVersion,
    name: envelope.metadata.name,
    ...(envelope.metadata.description === undefined ? {} : { description: envelope.metadata.description }),
    labels: envelope.metadata.labels,
    digest: createHash('sha256').update(varsDigestInput(text, layered.contentByPath)).digest('hex'),
    inputs,
    vars: layered.workflowFiles.length > 0 ? storedVars(workflowVars, filesVars(contents, layered.workflowFiles)) : workflowVars,
    ...(layered.workflowFiles.length > 0 ? { varsFiles: layered.workflowFiles } : {}),
    outputs: envelope.spec.outputs as Record<string, JsonValue>,
    policy: envelope.spec.policy,
    runtime: envelope.spec.runtime,
    actions: { ...actions, ...flowActions },
    tasks: ordered.map(stored),
    providers: agents.providers,
    agents: agents.agents,
    tools: agents.tools,
    ...(Object.keys(sections).length > 0 ? { sections } : {}),
    ...(envelope.spec.compensation ? { compensation: envelope.spec.compensation } : {}),
    ...(longTermMemory ? { longTermMemory } : {}),
    ...(layered.captured ? { capturedVars: layered.captured } : {}),
    ...(Object.keys(envelope.spec.memory.working).length > 0 ? { workingMemory: envelope.spec.memory.working as Record<string, JsonValue> } : {}),
  };
  try {
    return { plan: await host.hooks.compile.promise(plan, { file, source: text }), source, packs: load.packs, warnings: load.warnings };
  } catch (error) {
    if (isAgentctlError(error) && error.code !== 'AGENTCTL_E_PLUGIN_FAILED') throw error;
    const message = errorMessage(error);
    throw new AgentctlError('AGENTCTL_E_COMPILE_REJECTED', message, { diagnostics: [diagnostic('AGENTCTL_E_COMPILE_REJECTED', { message, file, line: 1, column: 1 })], cause: error });
  }
}

function fail(diagnostics: Diagnostic[], file: string): never {
  // The envelope schema and the part-by-part checks may find the same problem (an unknown "__proto__" key): once.
  const seen = new Set<string>();
  const unique = diagnostics.filter((item) => {
    const key = `${item.code}\u0000${item.path ?? ''}\u0000${item.message}`;
    return seen.has(key) ? false : (seen.add(key), true);
  });
  const first = unique[0]!;
  const more = unique.length > 1 ? ` (and ${unique.length - 1} more)` : '';
  throw new AgentctlError(first.code, `${file}:${first.line ?? 1}:${first.column ?? 1}: ${first.message}${more}`, { diagnostics: unique });
}

/** Every action with a known kind is checked against its kind, read from the document itself (not the envelope). */
function compileActions(host: Host, source: SourceDocument, document: unknown, sections: SpecSectionValues, diagnostics: Diagnostic[], report: Report): Record<string, CompiledAction> {
  const actions: Record<string, CompiledAction> = {};
  const spec = (document as { spec?: { actions?: unknown } } | null)?.spec;
  const declared = spec?.actions !== null && typeof spec?.actions === 'object' && !Array.isArray(spec.actions) ? (spec.actions as Record<string, unknown>) : {};
  for (const [name, raw] of Object.entries(declared)) {
    const path: PathSegment[] = ['spec', 'actions', name];
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw) || typeof (raw as { kind?: unknown }).kind !== 'string') continue;
    const { kind: kindName, ...fields } = raw as { kind: string } & Record<string, unknown>;
    // A task body's own kind (e.g. an agent's, reached through uses: agent:NAME) is not declared here.
    const kind = host.declaredActionKind(kindName);
    if (!kind) {
      const known = host.actionKinds().map((entry) => entry.name);
      report('AGENTCTL_E_UNKNOWN_ACTION_KIND', [...path, 'kind'], `action ${name} has unknown kind "${kindName}"`, suggestion(kindName, known, 'registered kinds'));
      continue;
    }
    const parsedFields = kind.actionSchema.safeParse(fields);
    const inputFields = parsedFields.success ? fieldsAt(inputSchemaOf(kind, parsedFields.data, sections), []) : fieldsAt(kind.inputSchema, []);
    const where = inputFields.length > 0 ? `the task's with (${kind.name} takes ${inputFields.join(', ')} there)` : `the task's with of another action; ${kind.name} takes no run-time input`;
    for (const template of templateStrings(fields)) {
      report('AGENTCTL_E_TEMPLATE_NOT_ALLOWED', [...path, ...template.path], `action fields are static; "${template.text}" is a template`, `pass run-time values through ${where}`);
    }
    const parsed = parseWithPlainText(kind.actionSchema, fields, source.plainText, path).result;
    if (!parsed.success) {
      diagnostics.push(...issuesToDiagnostics(parsed.error.issues, source, path, kind.actionSchema, ['kind']));
      continue;
    }
    actions[name] = { name, kind: kind.name, fields: parsed.data as Record<string, unknown>, profile: profileOf(kind, parsed.data) };
    let description: ActionDescription | undefined;
    try {
      description = kind.describe?.(parsed.data, { defaultTimeoutSeconds: 1, process: host.process });
    } catch (error) {
      const failure = host.errorCodes.normalize(error, host.ownerOf(kind.name) ?? kind.name, 'describe');
      report(failure.code as Diagnostic['code'], path, failure.message);
      continue;
    }
    checkIsolation(host, name, description, [...path, 'isolation'], report);
  }
  return actions;
}

/** A process action must name a registered isolation mode: kinds are keys, and so are modes. */
function checkIsolation(host: Host, action: string, description: ActionDescription | undefined, path: PathSegment[], report: Report): void {
  const mode = description?.process?.isolation;
  if (mode === undefined || host.process.hasMode(mode)) return;
  const known = host.isolationModes().join(', ') || '(none)';
  report('AGENTCTL_E_UNKNOWN_ISOLATION', path, `action ${action} uses isolation "${mode}", which no registered plugin provides`, `registered isolation modes: ${known}`);
}

/**
 * Templates are evaluated only in a task's `with` and `when` and in `spec.outputs` values. Anywhere else they would
 * silently stay literal text, so they are refused. (Action fields are reported by compileActions.) A `__proto__` key
 * is refused everywhere, actions included, as the unknown field it is: no schema defines it.
 */
function checkTemplatePlacement(source: SourceDocument, document: unknown, diagnostics: Diagnostic[], report: Report): void {
  // A sub-workflow definition's tasks and outputs are evaluated like the workflow's own.
  const local = (path: PathSegment[]): PathSegment[] => (path[0] === 'spec' && path[1] === 'subworkflows' && path.length > 3 ? ['spec', ...path.slice(3)] : path);
  const evaluated = (full: PathSegment[]) => {
    const path = local(full);
    if (path[0] !== 'spec') return false;
    if (path[1] === 'outputs') return path.length > 2;
    if (path[1] !== 'tasks') return false;
    const [field, sub] = [path[3], path[4]];
    return field === 'with' || (field === 'compensate' && sub === 'with') || (field === 'when' && path.length === 4) || (field === 'loop' && sub === 'while' && path.length === 5) || (field === 'route' && sub === 'select' && path.length === 5);
  };
  const inAction = (path: PathSegment[]) => path[0] === 'spec' && path[1] === 'actions';
  const visit = (value: unknown, path: PathSegment[]): void => {
    if (typeof value === 'string') {
      if (hasTemplate(value) && !evaluated(path) && !inAction(path)) report('AGENTCTL_E_TEMPLATE_NOT_ALLOWED', path, `templates are not evaluated at ${formatPath(path)}; "${value}" would stay literal text`, 'templates work in a task\'s with, compensate.with, when, loop.while and route.select, and in spec.outputs (and the same places of a sub-workflow)');
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => visit(item, [...path, index]));
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        if (key === '__proto__') diagnostics.push(unknownField(source, path, key, []));
        if (hasTemplate(key) && !inAction(path)) report('AGENTCTL_E_TEMPLATE_NOT_ALLOWED', [...path, key], `"${key}" is a template used as a key; keys are never evaluated`);
        visit(item, [...path, key]);
      }
    }
  };
  visit(document, []);
}

/** Both passes over the task documents: each checked where it is written, then expanded into the plan's tasks. */
function compileTasks(host: Host, parts: WorkflowParts, actions: Record<string, CompiledAction>, report: Report): Expanded {
  const context = { host, parts, actions, report };
  const { top, definitions } = levelsOf(parts);
  const checkedOf = (level: Level) => ({ order: level.tasks.map((entry) => entry.task.id), checked: checkLevel(context, level) });
  const checkedDefinitions = new Map<string, { level: ReturnType<typeof checkedOf>; document: SubworkflowDocument }>();
  for (const [name, level] of definitions) {
    const document = parts.envelope.spec.subworkflows[name]!;
    checkDefinition(name, document, level, report);
    checkedDefinitions.set(name, { level: checkedOf(level), document });
  }
  const expanded = expandTasks({ top: checkedOf(top), definitions: checkedDefinitions, report });
  const seen = new Set<string>();
  for (const task of expanded.tasks) {
    if (seen.has(task.id)) report('AGENTCTL_E_DUPLICATE_TASK', expanded.sources.get(task.id) ?? ['spec', 'tasks'], `the compiled task id "${task.id}" is used twice (a task id collides with an expanded or namespaced one)`, 'rename the task');
    seen.add(task.id);
  }
  return expanded;
}

function orderTasks({ tasks, sources }: Expanded, report: Report): CompiledTask[] {
  const result = topologicalOrder(tasks);
  if ('order' in result) {
    const byId = new Map(tasks.map((task) => [task.id, task]));
    return result.order.map((id) => byId.get(id)!);
  }
  const first = result.cycle[0]!;
  // A cycle of thousands of tasks is named by its first steps, not printed whole.
  const steps = result.cycle.length > 12 ? `${result.cycle.slice(0, 10).join(' → ')} → … → ${first} (${result.cycle.length - 1} tasks)` : result.cycle.join(' → ');
  report('AGENTCTL_E_DEPENDENCY_CYCLE', [...(sources.get(first) ?? ['spec', 'tasks', 0]), 'needs'], `tasks form a cycle: ${steps}`, 'remove one of the needs entries of this cycle');
  return tasks;
}

/** Whether a kind starts processes, by its declared effect class (unknown kinds are judged when compiled). */
export const processKinds = (host: Host) => (kind: string) => host.actionKind(kind)?.effect.effectClass === 'process_execution';

/** Declared defaults overridden by the caller's values. Unknown names are refused: a typo must not go unnoticed. */
export function mergeInputs(declared: Record<string, unknown>, overrides: Readonly<Record<string, JsonValue>>): Record<string, JsonValue> {
  const unknown = Object.keys(overrides).filter((key) => !Object.hasOwn(declared, key));
  if (unknown.length > 0) {
    const names = Object.keys(declared).join(', ') || '(none)';
    throw new AgentctlError('AGENTCTL_E_INPUT_INVALID', `input ${unknown.map((key) => `"${key}"`).join(', ')} is not declared in spec.inputs`, {
      help: `declared inputs: ${names}`,
    });
  }
  return { ...(declared as Record<string, JsonValue>), ...overrides };
}
