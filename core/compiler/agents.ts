// Providers, agents and tools: references between them and to registered kinds, capability negotiation, strict tool
// contracts, pricing for cost budgets. Each agent becomes a synthetic action `agent:NAME` of the core's agent kind.
import { errorMessage, jsonSchemaValidator, type CompiledAction, type CompiledAgent, type CompiledProvider, type CompiledTool, type JsonObject } from '@agentctl/sdk';
import { agentActionName, AGENT_KIND, MODEL_PROFILE, type AgentFields } from './agent-action.js';
import type { Host } from '../host.js';
import type { AgentDocument, ProviderDocument, ToolDocument } from './agent-schema.js';
import type { WorkflowParts } from './partial.js';
import type { PathSegment } from './source.js';
import { suggestion, type Report } from './checks.js';

/** What the compiler adds to the plan for agents. */
export interface CompiledAgents {
  readonly providers: Record<string, CompiledProvider>;
  readonly agents: Record<string, CompiledAgent>;
  readonly tools: Record<string, CompiledTool>;
  /** `agent:NAME` → the synthetic action of each agent that compiled. */
  readonly actions: Record<string, CompiledAction>;
}

/** Names a model may call a tool by (the strictest common rule of the providers' APIs). */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export function compileAgents(host: Host, parts: WorkflowParts, declaredActions: Record<string, CompiledAction>, report: Report): CompiledAgents {
  const { spec } = parts.envelope;
  const providers = compileProviders(host, spec.providers, report);
  const tools = compileTools(host, spec.tools, declaredActions, report);
  const agents: Record<string, CompiledAgent> = {};
  const actions: Record<string, CompiledAction> = {};
  for (const [name, document] of Object.entries(spec.agents)) {
    const path: PathSegment[] = ['spec', 'agents', name];
    const agent = compileAgent(name, document, path, report);
    agents[name] = agent;
    const provider = providers[document.provider];
    if (!Object.hasOwn(spec.providers, document.provider)) {
      report('AGENTCTL_E_AGENT_INVALID', [...path, 'provider'], `agent ${name} uses provider "${document.provider}", which is not declared in spec.providers`, suggestion(document.provider, Object.keys(spec.providers), 'declared providers'));
    } else if (provider) {
      checkProviderFit(host, agent, provider, path, parts, report);
    }
    const agentTools: CompiledTool[] = [];
    document.tools.forEach((toolName, index) => {
      if (!Object.hasOwn(spec.tools, toolName)) {
        report('AGENTCTL_E_AGENT_INVALID', [...path, 'tools', index], `agent ${name} uses tool "${toolName}", which is not declared in spec.tools`, suggestion(toolName, Object.keys(spec.tools), 'declared tools'));
      } else if (document.tools.indexOf(toolName) !== index) {
        report('AGENTCTL_E_AGENT_INVALID', [...path, 'tools', index], `agent ${name} lists tool "${toolName}" twice`);
      } else if (tools[toolName]) {
        agentTools.push(tools[toolName]);
      }
    });
    if (provider) {
      const fields: AgentFields = { agent, provider, tools: agentTools };
      actions[agentActionName(name)] = { name: agentActionName(name), kind: AGENT_KIND, fields: fields as unknown as Record<string, unknown>, profile: MODEL_PROFILE };
    }
  }
  checkPricing(parts, report);
  return { providers, agents, tools, actions };
}

function compileProviders(host: Host, declared: Record<string, ProviderDocument>, report: Report): Record<string, CompiledProvider> {
  const compiled: Record<string, CompiledProvider> = {};
  for (const [name, document] of Object.entries(declared)) {
    const path: PathSegment[] = ['spec', 'providers', name];
    const kind = host.provider(document.kind);
    if (!kind) {
      report('AGENTCTL_E_AGENT_INVALID', [...path, 'kind'], `provider ${name} has kind "${document.kind}", which no registered plugin provides`, suggestion(document.kind, host.providers(), 'registered provider kinds'));
      continue;
    }
    if (kind.requiresEndpoint && document.endpoint === undefined) report('AGENTCTL_E_AGENT_INVALID', path, `provider ${name} (kind ${document.kind}) needs an endpoint`, 'set endpoint to the base URL of your deployment');
    const credential = document.credential ?? (kind.credentialVariable ? { env: kind.credentialVariable } : undefined);
    compiled[name] = {
      name,
      kind: document.kind,
      ...(document.endpoint === undefined ? {} : { endpoint: document.endpoint }),
      ...(document.apiVersion === undefined ? {} : { apiVersion: document.apiVersion }),
      ...(credential ? { credential } : {}),
      headers: document.headers,
    };
  }
  return compiled;
}

function compileAgent(name: string, document: AgentDocument, path: PathSegment[], report: Report): CompiledAgent {
  if ((document.instructions === undefined) === (document.instructionsFile === undefined)) {
    report('AGENTCTL_E_AGENT_INVALID', path, `agent ${name} needs exactly one of instructions and instructionsFile`);
  }
  if (document.instructionsFile !== undefined && document.instructionsFile.split(/[\\/]/).includes('..')) {
    report('AGENTCTL_E_POLICY_PATH_ESCAPE', [...path, 'instructionsFile'], `agent ${name}: instructionsFile must not contain ".."`);
  }
  if (document.structuredOutput !== undefined) checkSchema(document.structuredOutput, [...path, 'structuredOutput'], `agent ${name} structuredOutput`, report);
  if (document.usageLimit?.maxCostUsd !== undefined) {
    report('AGENTCTL_E_AGENT_INVALID', [...path, 'usageLimit', 'maxCostUsd'], `agent ${name}: maxCostUsd cannot be enforced from provider answers`, 'limit cost with spec.runtime.budgets.maxCostMicrousd and a spec.runtime.pricing table');
  }
  const { maxCostUsd: _cost, ...usageLimit } = document.usageLimit ?? {};
  return {
    name,
    provider: document.provider,
    model: document.model,
    ...(document.description === undefined ? {} : { description: document.description }),
    ...(document.instructions === undefined ? {} : { instructions: document.instructions }),
    ...(document.instructionsFile === undefined ? {} : { instructionsFile: document.instructionsFile }),
    tools: document.tools,
    maxTurns: document.maxTurns,
    maxToolCalls: document.maxToolCalls,
    maxOutputTokens: document.maxOutputTokens,
    timeoutSeconds: document.timeoutSeconds,
    retry: document.retry,
    ...(document.reasoning === undefined ? {} : { reasoning: document.reasoning }),
    ...(document.structuredOutput === undefined ? {} : { structuredOutput: document.structuredOutput as JsonObject }),
    ...(Object.keys(usageLimit).length > 0 ? { usageLimit } : {}),
    stream: document.stream,
    providerOptions: document.providerOptions as JsonObject,
  };
}

/** Capability negotiation and the provider's own option schema, at `check`. */
function checkProviderFit(host: Host, agent: CompiledAgent, provider: CompiledProvider, path: PathSegment[], parts: WorkflowParts, report: Report): void {
  const kind = host.provider(provider.kind)!;
  const lacks = (what: string, field: string) =>
    report('AGENTCTL_E_AGENT_INVALID', [...path, field], `agent ${agent.name} needs ${what}, which provider kind ${provider.kind} does not support`, `use a provider kind with ${what}, or remove ${field}`);
  if (agent.tools.length > 0 && !kind.capabilities.tools) lacks('tools', 'tools');
  if (agent.structuredOutput !== undefined && !kind.capabilities.structuredOutput) lacks('structured output', 'structuredOutput');
  if (agent.reasoning !== undefined && !kind.capabilities.reasoning) lacks('reasoning settings', 'reasoning');
  if (agent.stream && !kind.capabilities.streaming) lacks('streaming', 'stream');
  const allowed = parts.envelope.spec.policy.providers;
  if (allowed.length > 0 && !allowed.includes(provider.name) && !allowed.includes(provider.kind)) {
    report('AGENTCTL_E_AGENT_INVALID', [...path, 'provider'], `agent ${agent.name} uses provider ${provider.name}, which spec.policy.providers does not list`, `add ${provider.name} to spec.policy.providers`);
  }
  const options = kind.optionsSchema;
  if (!options) {
    if (Object.keys(agent.providerOptions).length > 0) report('AGENTCTL_E_AGENT_INVALID', [...path, 'providerOptions'], `provider kind ${provider.kind} takes no providerOptions`);
    return;
  }
  const parsed = options.safeParse(agent.providerOptions);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const keys = issue.code === 'unrecognized_keys' ? ` (${issue.keys.join(', ')})` : '';
      report('AGENTCTL_E_AGENT_INVALID', [...path, 'providerOptions', ...(issue.path as PathSegment[])], `providerOptions of agent ${agent.name} for ${provider.kind}: ${issue.message}${keys}`);
    }
  }
}

function compileTools(host: Host, declared: Record<string, ToolDocument>, actions: Record<string, CompiledAction>, report: Report): Record<string, CompiledTool> {
  const compiled: Record<string, CompiledTool> = {};
  for (const [name, document] of Object.entries(declared)) {
    const path: PathSegment[] = ['spec', 'tools', name];
    let usable = true;
    const problem = (where: PathSegment[], message: string, help?: string) => {
      usable = false;
      report('AGENTCTL_E_AGENT_INVALID', where, message, help);
    };
    if (!TOOL_NAME.test(name)) problem(path, `tool name "${name}" is not one a model can call: letters, digits, "_" and "-", at most 64`);
    const input = document.inputSchema as JsonObject;
    if (input.type !== 'object' || input.additionalProperties !== false) {
      problem([...path, 'inputSchema'], `tool ${name}: inputSchema must be a strict object (type: object, additionalProperties: false)`);
    } else {
      const properties = Object.keys((input.properties ?? {}) as JsonObject);
      const required = Array.isArray(input.required) ? input.required : [];
      const optional = properties.filter((property) => !required.includes(property));
      if (optional.length > 0) problem([...path, 'inputSchema', 'required'], `tool ${name}: a strict inputSchema must require every property; ${optional.join(', ')} ${optional.length === 1 ? 'is' : 'are'} not required`);
      if (!checkSchema(input, [...path, 'inputSchema'], `tool ${name} inputSchema`, report)) usable = false;
    }
    if (!checkSchema(document.outputSchema, [...path, 'outputSchema'], `tool ${name} outputSchema`, report)) usable = false;
    if (document.kind === 'action') {
      if (document.action === undefined) problem(path, `tool ${name} has kind action and no action`, 'name the spec.actions entry the tool runs in action');
      else if (!Object.hasOwn(actions, document.action)) problem([...path, 'action'], `tool ${name} runs action "${document.action}", which is not declared in spec.actions (or did not compile)`, suggestion(document.action, Object.keys(actions), 'declared actions'));
    } else {
      if (document.action !== undefined) problem([...path, 'action'], `tool ${name}: action is only for tools of kind action`);
      const kind = host.toolKind(document.kind);
      if (!kind) problem([...path, 'kind'], `tool ${name} has kind "${document.kind}", which no registered plugin provides`, suggestion(document.kind, [...host.toolKinds(), 'action'], 'tool kinds'));
      if (kind && !kind.usesSecrets && document.secrets.length > 0) problem([...path, 'secrets'], `tool ${name}: kind ${document.kind} takes no secrets`);
      if (kind && !kind.usesNetwork && document.network.length > 0) problem([...path, 'network'], `tool ${name}: kind ${document.kind} makes no network requests`);
    }
    const tool: CompiledTool = {
      name,
      kind: document.kind,
      ...(document.action === undefined ? {} : { action: document.action }),
      description: document.description,
      inputSchema: document.inputSchema as JsonObject,
      outputSchema: document.outputSchema as JsonObject,
      capability: document.capability,
      profile: { effectClass: document.effectClass, risk: document.risk, idempotency: document.idempotency },
      retrySafe: document.retrySafe,
      timeoutSeconds: document.timeoutSeconds,
      approval: document.approval,
      secrets: document.secrets,
      network: document.network,
    };
    const settings = { name, kind: tool.kind, description: tool.description, inputSchema: tool.inputSchema, outputSchema: tool.outputSchema, timeoutSeconds: tool.timeoutSeconds, capability: tool.capability, profile: tool.profile };
    for (const message of host.toolKind(document.kind)?.checkDefinition?.(settings) ?? []) problem(path, `tool ${name}: ${message}`);
    if (usable) compiled[name] = tool;
  }
  return compiled;
}

/** A JSON Schema must compile: an invalid one would only fail when a model answers. */
function checkSchema(schema: unknown, path: PathSegment[], what: string, report: Report): boolean {
  try {
    jsonSchemaValidator(schema as JsonObject);
    return true;
  } catch (error) {
    report('AGENTCTL_E_AGENT_INVALID', path, `${what} is not a valid JSON Schema: ${errorMessage(error)}`);
    return false;
  }
}

/** maxCostMicrousd prices every agent's model: each `providerKind/model` needs a row of the pricing table. */
function checkPricing(parts: WorkflowParts, report: Report): void {
  const { runtime, agents, providers } = parts.envelope.spec;
  if (runtime.budgets?.maxCostMicrousd === undefined || !runtime.pricing) return;
  for (const [name, agent] of Object.entries(agents)) {
    const kind = providers[agent.provider]?.kind;
    if (kind === undefined) continue;
    const key = `${kind}/${agent.model}`;
    if (!Object.hasOwn(runtime.pricing.models, key)) {
      report('AGENTCTL_E_BUDGET_PRICING_MISSING', ['spec', 'agents', name, 'model'], `maxCostMicrousd needs a price for ${key} in spec.runtime.pricing.models`, `add "${key}" with inputMicrousdPerMillionTokens and outputMicrousdPerMillionTokens`);
    }
  }
}
