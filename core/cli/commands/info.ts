// `version` and `plugins list`.
import type { CommandModule } from 'yargs';
import { SCHEMA_VERSION } from '../../store/migrations.js';
import { composeHost } from '../composition.js';
import { CLI_API_VERSION, HOST_VERSION } from '../../version.js';
import { handler, type GlobalArgs } from '../handler.js';
import { emit } from '../output.js';

export const versionCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'version',
  describe: 'Print the agentctl version',
  handler: handler<GlobalArgs>(async (_argv, output) => {
    const data = { version: HOST_VERSION, cliApiVersion: CLI_API_VERSION, databaseSchemaVersion: SCHEMA_VERSION, node: process.versions.node };
    emit(output, 'Version', data, () => `agentctl ${HOST_VERSION} (node ${process.versions.node}, database schema ${SCHEMA_VERSION})`);
    return 0;
  }),
};

const pluginsList: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'list',
  describe: 'List the registered plugins, builtins included',
  handler: handler<GlobalArgs>(async (_argv, output) => {
    const plugins = composeHost().plugins();
    emit(output, 'PluginList', { plugins }, () =>
      plugins
        .map((plugin) => {
          const provides = [...plugin.actionKinds.map((kind) => `kind ${kind}`), ...plugin.secretForms.map((form) => `secret {${form}: ...}`)].join(', ');
          return `${plugin.name}@${plugin.version}  ${plugin.source}  ${provides}`;
        })
        .join('\n'),
    );
    return 0;
  }),
};

export const pluginsCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'plugins',
  describe: 'Plugins registered in this host',
  builder: (yargs) => yargs.command(pluginsList).demandCommand(1, 'name a plugins subcommand: list') as never,
  handler: () => undefined,
};
