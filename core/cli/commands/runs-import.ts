// `runs import LEDGER --db DB [--run RUN...]`: copies runs of another ledger of the same family into this one, with
// the runs they stand on, their artifacts and their provenance (core/store/ledger-import.ts). A target the command
// creates and then cannot fill is removed again: a refused import leaves no new database behind.
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CommandModule } from 'yargs';
import { AgentctlError } from '@agentctl/sdk';
import { importRuns, type LedgerImport } from '../../store/ledger-import.js';
import { Store } from '../../store/store.js';
import { handler, type GlobalArgs } from '../handler.js';
import { emit } from '../output.js';
import { databasePath, dbOption } from '../database-option.js';
import { newStatePaths } from '../new-state-paths.js';

interface ImportArgs extends GlobalArgs {
  ledger: string;
  db?: string;
  run?: string | string[];
}

export const runsImport: CommandModule<GlobalArgs, ImportArgs> = {
  command: 'import <ledger>',
  describe: 'Copy runs of another ledger of the same family (with the runs they stand on and their artifacts) into --db',
  builder: (yargs) =>
    yargs
      .positional('ledger', { type: 'string', demandOption: true, describe: 'the database file to import from (read only)' })
      .option('run', { type: 'string', describe: 'import this run (and the runs it stands on); repeat for more; default: every run' })
      .option('db', dbOption('the database to import into (created when missing)')) as never,
  handler: handler<ImportArgs>(async (argv, output) => {
    const runIds = argv.run === undefined ? undefined : [argv.run].flat();
    if (runIds?.some((id) => id.trim() === '')) throw new AgentctlError('AGENTCTL_E_USAGE', '--run needs a run id');
    if (typeof argv.ledger !== 'string' || argv.ledger.trim() === '') throw new AgentctlError('AGENTCTL_E_USAGE', 'name the ledger to import from');
    const path = resolve(databasePath(argv.db));
    const created = newStatePaths(path);
    let result: LedgerImport;
    try {
      const store = Store.open(path, { create: true, stateKeys: argv.stateKeys });
      try {
        result = importRuns(store, argv.ledger, runIds === undefined ? {} : { runIds });
      } finally {
        store.close();
      }
    } catch (error) {
      for (const made of created) rmSync(made, { recursive: true, force: true });
      throw error;
    }
    const imported = result.runs.filter((run) => run.imported).length;
    const data = { ...result, imported, unchanged: result.runs.length - imported };
    emit(output, 'RunImport', data, () =>
      [
        `imported ${imported} run(s) from ${result.source} (${data.unchanged} already here, unchanged; ${result.blobsCopied} blob(s) copied)`,
        ...result.runs.map((run) => `  ${run.runId}  ${run.workflowName}  ${run.state}  ${run.replaced ? 'replaced' : run.imported ? 'imported' : 'unchanged'}`),
      ].join('\n'),
    );
    return 0;
  }),
};
