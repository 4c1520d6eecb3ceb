// `version` and `plugins list`.
import type { CommandModule } from 'yargs';
import { SCHEMA_VERSION } from '../../store/migrations.js';
import type { Compose } from '../composition.js';
import { CLI_API_VERSION, HOST_VERSION, REFERENCE_FORMAT_VERSION } from '../../version.js';
import { handler, type GlobalArgs } from '../handler.js';
import { emit } from '../output.js';

export const versionCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'version',
  describe: 'Print the agentctl version',
  handler: handler<GlobalArgs>(async (_argv, output) => {
    const data = { version: HOST_VERSION, cliApiVersion: CLI_API_VERSION, databaseSchemaVersion: SCHEMA_VERSION, referenceFormatVersion: REFERENCE_FORMAT_VERSION, node: process.versions.node };
    emit(output, 'Version', data, () => `agentctl ${HOST_VERSION} (node ${process.versions.node}, database schema ${SCHEMA_VERSION}, reference format ${REFERENCE_FORMAT_VERSION})`);
    return 0;
  }),
};

const pluginsList = (compose: Compose): CommandModule<GlobalArgs, GlobalArgs> => ({
  command: 'list',
  describe: 'List the registered plugins, builtins included',
  handler: handler<GlobalArgs>(async (_argv, output) => {
    const plugins = compose().plugins();
    emit(output, 'PluginList', { plugins }, () =>
      plugins
        .map((plugin) => {
          const owns = [
            ...plugin.actionKinds.map((kind) => `kind ${kind}`),
            ...plugin.secretForms.map((form) => `secret {${form}: ...}`),
            ...plugin.isolationModes.map((mode) => `isolation ${mode}`),
            ...plugin.providers.map((kind) => `provider ${kind}`),
            ...plugin.toolKinds.map((kind) => `tool ${kind}`),
            ...(plugin.network ? ['the network client'] : []),
            ...plugin.errorCodes.map((code) => `code ${code}`),
          ].join(', ');
          return `${plugin.name}@${plugin.version}  ${plugin.source}  owns ${owns || 'nothing (hooks only)'}`;
        })
        .join('\n'),
    );
    return 0;
  }),
});

export const pluginsCommand = (compose: Compose): CommandModule<GlobalArgs, GlobalArgs> => ({
  command: 'plugins',
  describe: 'Plugins registered in this host',
  builder: (yargs) => yargs.command(pluginsList(compose)).demandCommand(1, 'name a plugins subcommand: list') as never,
  handler: () => undefined,
});
