// `agentctl cancel RUN`: durably request a run's cancellation (kind `Cancellation`). The process driving the run stops
// it at its next task boundary (exit 130 there); a paused or interrupted run ends `cancelled` at once.
import type { CommandModule } from 'yargs';
import { requestCancellation } from '../../store/cancellation.js';
import { liveness } from '../../store/liveness.js';
import { Store } from '../../store/store.js';
import { databasePath, dbOption } from '../database-option.js';
import { handler, type GlobalArgs } from '../handler.js';
import { emit } from '../output.js';

interface CancelArgs extends GlobalArgs {
  run: string;
  db?: string;
}

export const cancelCommand: CommandModule<GlobalArgs, CancelArgs> = {
  command: 'cancel <run>',
  describe: 'Durably request cancellation: a driven run stops at its next task boundary, a paused or interrupted one ends now',
  builder: (yargs) => yargs.positional('run', { type: 'string', demandOption: true, describe: 'id of a running, paused or interrupted run' }).option('db', dbOption()) as never,
  handler: handler<CancelArgs>(async (argv, output) => {
    const store = Store.open(databasePath(argv.db), { create: false, stateKeys: argv.stateKeys });
    try {
      const result = requestCancellation(store, argv.run, (row) => liveness(row) === 'active');
      const human = result.state === 'cancelled' ? `run ${result.runId} cancelled (it was ${result.previousState})` : `cancellation of run ${result.runId} requested: the process driving it stops at its next task boundary`;
      emit(output, 'Cancellation', { runId: result.runId, requested: true, state: result.state, previousState: result.previousState }, () => human);
      return 0;
    } finally {
      store.close();
    }
  }),
};
