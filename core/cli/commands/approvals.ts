// `agentctl approvals list RUN | approve ID | reject ID`: the operator's side of a paused run.
import type { CommandModule } from 'yargs';
import { AgentctlError } from '@agentctl/sdk';
import { parser } from '../../store/inspection.js';
import { approvalRecord } from '../../store/ledger-records.js';
import { Store, type Row } from '../../store/store.js';
import { handler, type GlobalArgs } from '../handler.js';
import { emit, neutralize } from '../output.js';
import { databasePath, dbOption } from '../database-option.js';
import { recordedConfigOf, recordedFile } from '../run-config.js';

interface DecideArgs extends GlobalArgs {
  approval: string;
  reason: string;
  actor?: string;
  db?: string;
}


/** Who decides: --actor, else the login name, else "operator". */
export function actorOf(value: string | undefined, environment: NodeJS.ProcessEnv): string {
  if (value !== undefined && value.trim() === '') throw new AgentctlError('AGENTCTL_E_USAGE', '--actor must not be empty');
  return value ?? (environment.USER?.trim() || 'operator');
}

/** The --reason text, required and not blank. */
export function reasonOf(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw new AgentctlError('AGENTCTL_E_USAGE', '--reason must say why', { help: 'e.g. --reason "reviewed the change"' });
  return value;
}

/** An approval with the effect it gates, in the reference's ApprovalRequest shape (secret values already redacted). */
function approvalView(store: Store, row: Row) {
  const run = store.runRow(String(row.run_id));
  return approvalRecord(row, store.effect(String(row.effect_id)) as Row | undefined, String(run?.trace_id ?? ''), parser(String(row.run_id)));
}

interface ListArgs extends GlobalArgs {
  run: string;
  all?: boolean;
  db?: string;
}

const list: CommandModule<GlobalArgs, ListArgs> = {
  command: 'list <run>',
  describe: 'List the pending approvals of a run (--all: every one), with the input of the effect each one gates',
  builder: (yargs) =>
    yargs
      .positional('run', { type: 'string', demandOption: true, describe: 'run id' })
      .option('all', { type: 'boolean', describe: 'also the approved, rejected and cancelled ones' })
      .option('db', dbOption()) as never,
  handler: handler<ListArgs>(async (argv, output) => {
    const store = Store.open(databasePath(argv.db), { create: false, readonly: true, stateKeys: argv.stateKeys });
    try {
      store.existingRun(argv.run);
      // The document's data is the list itself, as the reference prints it: the pending approvals unless --all.
      const approvals = store
        .approvalRows(argv.run)
        .filter((row) => argv.all === true || row.state === 'pending')
        .map((row) => approvalView(store, row));
      emit(output, 'ApprovalList', approvals, () =>
        approvals.map((item) => `${String(item.approvalId)}  ${String(item.state)}  task ${String(item.taskId)}  ${String(item.operation)}: ${neutralize(String(item.reason))}\n  input ${neutralize(JSON.stringify(item.input))}`).join('\n') ||
        (argv.all === true ? 'no approvals' : 'no pending approvals'),
      );
      return 0;
    } finally {
      store.close();
    }
  }),
};

const decide = (decision: 'approved' | 'rejected'): CommandModule<GlobalArgs, DecideArgs> => ({
  command: `${decision === 'approved' ? 'approve' : 'reject'} <approval>`,
  describe: decision === 'approved' ? 'Approve a pending effect; `resume` then dispatches it once' : 'Reject a pending effect; `resume` then fails its task',
  builder: (yargs) =>
    yargs
      .positional('approval', { type: 'string', demandOption: true, describe: 'approval id (apr_...)' })
      .option('reason', { type: 'string', demandOption: true, describe: 'why (recorded)' })
      .option('actor', { type: 'string', describe: 'who decides (default: $USER, else "operator")' })
      .option('db', dbOption()) as never,
  handler: handler<DecideArgs>(async (argv, output) => {
    const reason = reasonOf(argv.reason);
    const actor = actorOf(argv.actor, process.env);
    const db = databasePath(argv.db);
    const store = Store.open(db, { create: false, stateKeys: argv.stateKeys });
    try {
      const view = approvalView(store, store.decideApproval(argv.approval, decision, actor, reason));
      const next = resumeCommandLine(store.runRow(String(view.runId)), argv.db === undefined ? undefined : db);
      emit(output, 'ApprovalResolution', view, () => `approval ${view.approvalId} ${decision} by ${neutralize(actor)}; continue with: ${neutralize(next)}`);
      return 0;
    } finally {
      store.close();
    }
  }),
});

/** The resume command for a run, with the database this command used (unless the default) and the run's config. */
function resumeCommandLine(row: Row | undefined, db: string | undefined): string {
  const recorded = row ? recordedConfigOf(row) : undefined;
  const config = recorded ? recordedFile(recorded) : null;
  const words = ['agentctl', 'resume', String(row?.id), ...(db === undefined ? [] : ['--db', db]), ...(config === null ? [] : ['--config', config])];
  return words.map(shellWord).join(' ');
}

/** A word as a POSIX shell reads it back: as it is when it is plain, else in single quotes. */
const shellWord = (word: string): string => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

export const approvalsCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'approvals',
  describe: 'List, approve or reject the approvals a run waits for',
  // --db may come before the subcommand too (`approvals --db PATH list RUN`), as the reference takes it.
  builder: (yargs) => yargs.option('db', dbOption()).command(list).command(decide('approved')).command(decide('rejected')).demandCommand(1, 'name an approvals subcommand: list, approve, reject') as never,
  handler: () => undefined,
};
