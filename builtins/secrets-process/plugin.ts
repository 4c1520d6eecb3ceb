// {process: {command, args, timeoutSeconds, outputLimitBytes}} secret references: an allowlisted helper's stdout.
import { AgentctlError, definePlugin } from '@agentctl/sdk';
import { parseReference, resolveHelper } from './reference.js';
import { runHelper } from './run.js';

/** UTF-8 text with exactly one trailing line ending (`\n` or `\r\n`) dropped. */
function secretText(bytes: Uint8Array, command: string): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new AgentctlError('AGENTCTL_E_SECRET_PROCESS_ENCODING', `{process: ...} helper ${JSON.stringify(command)} printed something that is not valid UTF-8`);
  }
  if (text.endsWith('\r\n')) return text.slice(0, -2);
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}

export default definePlugin({
  name: 'builtin.secrets.process',
  version: '0.1.0',
  hostRange: '^0.1.0',
  description: 'Resolves {process: {...}} secret references from the stdout of a helper in policy.secretProcessAllowlist.',
  setup(api) {
    api.registerSecretResolver('process', async (reference, context) => {
      const parsed = parseReference(reference.process);
      const executable = resolveHelper(parsed.command, context);
      if (context.checkOnly) return '';
      return secretText(await runHelper(executable, parsed, context), parsed.command);
    });
  },
});
