// One tool call of an agent: the call is checked against the tool's contract, recorded as an effect with the tool's
// declared class, risk and idempotency, authorized (tools are identified by name for toolsAllow/toolsDeny), run,
// and its output checked before it goes back to the model. A `kind: action` tool's call is handed to the task runner,
// which dispatches the action as a task of it would (core/runner/action-dispatch.ts).
import { AgentctlError, EffectFailure, jsonSchemaProblems, type CompiledTool, type JsonValue, type ToolCallBlock, type ToolSettings } from '@agentctl/sdk';
import type { AgentLoop } from './agent-loop.js';
import { boundedSignal } from '../runner/deadline.js';

export async function callTool(loop: AgentLoop, call: ToolCallBlock, index: number): Promise<JsonValue> {
  const { agent, tools } = loop.fields;
  const tool = tools.find((candidate) => candidate.name === call.name);
  if (!tool) {
    throw new AgentctlError('AGENTCTL_E_TOOL_CALL_INVALID', `agent ${agent.name}: the model called tool "${call.name}", which the agent does not have (tools: ${tools.map((entry) => entry.name).join(', ') || 'none'})`);
  }
  const problems = jsonSchemaProblems(tool.inputSchema, call.input);
  if (problems.length > 0) throw new AgentctlError('AGENTCTL_E_TOOL_CALL_INVALID', `agent ${agent.name}: the call of tool ${tool.name} does not match its inputSchema: ${problems.join('; ')}`);
  loop.budget?.expectToolCall(index, tool.name);
  const output = tool.kind === 'action' ? await loop.runAction(tool, call.id, call.input) : await runToolKind(loop, tool, call);
  const invalid = jsonSchemaProblems(tool.outputSchema, output);
  if (invalid.length > 0) throw new AgentctlError('AGENTCTL_E_TOOL_OUTPUT_INVALID', `tool ${tool.name} returned output that does not match its outputSchema: ${invalid.join('; ')}`);
  return output;
}

async function runToolKind(loop: AgentLoop, tool: CompiledTool, call: ToolCallBlock): Promise<JsonValue> {
  const kind = loop.host.toolKind(tool.kind);
  if (!kind) throw new AgentctlError('AGENTCTL_E_AGENT_INVALID', `tool ${tool.name} has kind ${tool.kind}, which no registered plugin provides`);
  const settings: ToolSettings = Object.freeze({ name: tool.name, kind: tool.kind, description: tool.description, inputSchema: tool.inputSchema, outputSchema: tool.outputSchema, timeoutSeconds: tool.timeoutSeconds, capability: tool.capability, profile: tool.profile });
  let access;
  try {
    access = kind.access(call.input, settings);
  } catch (error) {
    throw new AgentctlError('AGENTCTL_E_TOOL_CALL_INVALID', `tool ${tool.name}: ${(error as Error).message}`);
  }
  return loop.effect(
    { operation: 'tool.call', input: { tool: tool.name, kind: tool.kind, callId: call.id, input: call.input }, access: { ...access, tool: tool.name }, profile: tool.profile },
    async (signal) => {
      let stop!: () => void;
      const aborted = new Promise<never>((_, reject) => {
        stop = () => reject(new EffectFailure('uncertain', 'AGENTCTL_E_TASK_TIMEOUT', `tool ${tool.name} did not finish within ${tool.timeoutSeconds}s or was cancelled`));
      });
      const deadline = boundedSignal(signal, tool.timeoutSeconds * 1000, 'The operation was aborted due to timeout', () => stop());
      try {
        const running = kind.run(call.input, {
          tool: settings,
          files: loop.context.files,
          // Made on first read: most tools finish without looking at it.
          get signal() {
            return deadline.signal;
          },
          redact: (text, options) => loop.context.redact(text, options),
        });
        return await Promise.race([running, aborted]);
      } finally {
        deadline.dispose();
      }
    },
    undefined,
    tool.approval,
  );
}
