// {env: NAME} secret references, read from agentctl's own environment.
import { AgentctlError, definePlugin } from '@agentctl/sdk';

export default definePlugin({
  name: 'builtin.secrets.env',
  version: '0.1.0',
  hostRange: '^0.1.0',
  description: 'Resolves {env: NAME} secret references from the environment agentctl runs in.',
  setup(api) {
    api.registerSecretResolver('env', async (reference, context) => {
      const name = reference.env;
      if (typeof name !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
        throw new AgentctlError('AGENTCTL_E_SECRET_MISSING', `{env: ${JSON.stringify(name)}} is not a valid environment variable name`);
      }
      const value = context.environment[name];
      if (value === undefined) {
        throw new AgentctlError('AGENTCTL_E_SECRET_MISSING', `environment variable ${name} is not set`, { help: `export ${name} before running agentctl` });
      }
      return value;
    });
  },
});
