// `version`.
import type { CommandModule } from 'yargs';
import { SCHEMA_VERSION } from '../../store/migrations.js';
import { CLI_API_VERSION } from '@agentctl/sdk';
import { HOST_VERSION, REFERENCE_FORMAT_VERSION } from '../../version.js';
import { handler, type GlobalArgs } from '../handler.js';
import { emit } from '../output.js';

export const versionCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'version',
  describe: 'Print the agentctl version',
  handler: handler<GlobalArgs>(async (_argv, output) => {
    // version, rust and machineOutput are the reference's fields (rust: false, this is the TypeScript implementation).
    const data = { version: HOST_VERSION, rust: false, machineOutput: CLI_API_VERSION, cliApiVersion: CLI_API_VERSION, databaseSchemaVersion: SCHEMA_VERSION, referenceFormatVersion: REFERENCE_FORMAT_VERSION, node: process.versions.node };
    emit(output, 'Version', data, () => `agentctl ${HOST_VERSION} (node ${process.versions.node}, database schema ${SCHEMA_VERSION}, reference format ${REFERENCE_FORMAT_VERSION})`);
    return 0;
  }),
};
