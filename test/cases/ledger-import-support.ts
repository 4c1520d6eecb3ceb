// Shared by the `runs import` cases: the workflows that fill a source ledger (approvals, a reconciled effect, a retry
// chain, working memory, artifacts, a secret), the CLI bound to one test's workspace, and the views compared.
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { expect } from 'chai';
import { baseEnv, runCli, workspace, type CliResult } from '../support/cli.js';
import { outcome, rows, unique, uniqueSleep, workflow } from './helpers.js';

export type Workspace = ReturnType<typeof workspace>;

/** The slow step's sleep, found by this argument when a test kills the run that started it. */
export const SLEEP = uniqueSleep(30);

/** Remembers a note, writes a report (an artifact), then runs a shell step holding a secret that waits for `go`. */
const RICH = workflow({
  policy: { processAllowlist: ['sh'], environmentAllowlist: ['TOKEN'], writableRoots: ['out'], approval: 'never' },
  actions: {
    remember: { kind: 'builtin.memory.write' },
    write: { kind: 'builtin.write' },
    slow: { kind: 'builtin.shell.exec', command: 'sh', args: ['-c', 'test -f go || sleep "$0"; echo "token=$TOKEN"', SLEEP], env: { TOKEN: { env: 'CANARY' } } },
  },
  tasks: [
    { id: 'remember', uses: 'action:remember', with: { key: 'note', value: 'remembered' } },
    { id: 'report', uses: 'action:write', needs: ['remember'], with: { path: 'out/report.txt', content: 'the report' } },
    { id: 'slow', uses: 'action:slow', needs: ['report'] },
  ],
  outputs: { note: '${{ memory.note }}' },
} as never, 'rich');

/** One write that waits for an approval; its content is the input `text`. */
const APPROVED = workflow({
  inputs: { text: 'approved bytes' },
  policy: { approval: 'always', writableRoots: ['out'] },
  actions: { write: { kind: 'builtin.write' } },
  tasks: [{ id: 'write', uses: 'action:write', with: { path: 'out/approved.txt', content: '${{ inputs.text }}' } }],
} as never, 'approved');

export const killProcess = (pid: number) => {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
};

/** A state key: base64 of 32 bytes. */
export const newKey = () => Buffer.from(unique('k').padEnd(32, 'x').slice(0, 32)).toString('base64');

/** One test's workspace (rich.yaml, approved.yaml) and the canary its secret holds. */
export interface ImportCase {
  readonly ws: Workspace;
  readonly canary: string;
}

export const importCase = (): ImportCase => ({ ws: workspace({ 'rich.yaml': RICH, 'approved.yaml': APPROVED }), canary: unique('CANARY') });

/** The CLI on the current case's ledgers, and the steps and views the cases share. */
export function importTools(current: () => ImportCase) {
  const ws = () => current().ws;
  const source = () => ws().file('source/runtime.db');
  const target = () => ws().file('target/runtime.db');
  const cli = (db: string, args: string[], env: Record<string, string> = {}): CliResult =>
    runCli([...args, '--db', db, '--output', 'json'], { cwd: ws().dir, env: baseEnv({ CANARY: current().canary, ...env }) });
  const importInto = (db: string, from: string, ...extra: string[]) => cli(db, ['runs', 'import', from, ...extra]);

  /** A paused run whose approval is decided, then resumed: approvals, an artifact. */
  function approvedRun(db: string): string {
    const runId = outcome(cli(db, ['run', ws().file('approved.yaml')]), 3).data.runId as string;
    const [approval] = rows(db, 'SELECT id FROM approvals WHERE run_id = ?', runId);
    outcome(cli(db, ['approvals', 'approve', approval.id, '--reason', 'looks right']), 0);
    outcome(cli(db, ['resume', runId]), 0);
    return runId;
  }

  /** A run cut off by its timeout (an uncertain effect, reconciled), then its retry: a lineage chain with memory and artifacts. */
  function retriedRun(db: string, env: Record<string, string> = {}): { cancelled: string; retried: string } {
    rmSync(ws().file('go'), { force: true });
    const cancelled = outcome(cli(db, ['run', ws().file('rich.yaml'), '--timeout-seconds', '2'], env), 130).data.runId as string;
    const [uncertain] = rows(db, `SELECT id FROM effects WHERE run_id = ? AND task_id = 'slow' AND state = 'uncertain'`, cancelled);
    outcome(cli(db, ['effects', 'reconcile', uncertain.id, '--status', 'not-applied', '--reason', 'the step was stopped before it did anything'], env), 0);
    writeFileSync(ws().file('go'), '');
    const retried = outcome(cli(db, ['retry', ws().file('rich.yaml'), cancelled, '--failed'], env), 0).data.runId as string;
    return { cancelled, retried };
  }

  /** What the read commands print of a run, with what differs between two ledgers by design left out. */
  function views(db: string, runId: string): Record<string, unknown> {
    const inspection = outcome(cli(db, ['inspect', runId]), 0).data;
    delete inspection.importedFrom;
    // Each ledger numbers its own audit events.
    inspection.audit = inspection.audit.map(({ seq: _seq, ...event }: any) => event);
    const report = runCli(['report', runId, '--format', 'markdown', '--db', db], { cwd: ws().dir });
    expect(report.status, report.stderr).to.equal(0);
    return { inspection, effects: outcome(cli(db, ['effects', 'list', runId]), 0).data, report: report.stdout };
  }

  const replayed = (db: string, runId: string) => {
    const data = outcome(cli(db, ['replay', runId]), 0).data;
    return { state: data.state, output: data.output, tasks: data.tasks };
  };

  /** Every row of every table (null for no file), for "nothing was written". */
  const dump = (db: string) =>
    existsSync(db) ? rows(db, `SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).map(({ name }) => [name, rows(db, `SELECT * FROM "${name}"`)]) : null;

  return { source, target, cli, importInto, approvedRun, retriedRun, views, replayed, dump };
}
