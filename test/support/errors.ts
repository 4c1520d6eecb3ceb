// The stable code of what a synchronous call throws, or undefined when it returns.
import type { AgentctlError } from '@agentctl/sdk';

export function codeOf(body: () => unknown): string | undefined {
  try {
    body();
  } catch (error) {
    return (error as AgentctlError).code;
  }
  return undefined;
}
