// `report RUN --format FORMAT [--out FILE]`: a recorded run through a run reporter (the `inspect` document in, bytes
// out), written to FILE atomically or to standard output.
import type { CommandModule } from 'yargs';
import { Store } from '../../store/store.js';
import type { Compose } from '../composition.js';
import { databasePath, dbOption } from '../database-option.js';
import { handler, type GlobalArgs } from '../handler.js';
import { emit } from '../output.js';
import { renderRunReport } from '../run-report.js';
import { unknownFormat, writeReport, written } from '../output-files.js';

interface ReportArgs extends GlobalArgs {
  run: string;
  format: string;
  out?: string;
  db?: string;
}

export const reportCommand = (compose: Compose): CommandModule<GlobalArgs, ReportArgs> => ({
  command: 'report <run>',
  describe: 'Write a report of a recorded run in a registered format (markdown, ...) to a file or standard output',
  builder: (yargs) =>
    yargs
      .positional('run', { type: 'string', demandOption: true, describe: 'run id' })
      .option('format', { type: 'string', demandOption: true, describe: 'a run reporter\'s format, e.g. markdown (`agentctl plugins list` shows them)' })
      .option('out', { type: 'string', describe: 'write the report to this file (atomically) instead of standard output' })
      .option('db', dbOption()) as never,
  handler: handler<ReportArgs>(async (argv, output) => {
    const host = compose();
    const reporter = host.runReporter(argv.format);
    if (!reporter) throw unknownFormat('--format', argv.format, host.runReporters(), 'run reporter');
    const store = Store.open(databasePath(argv.db), { create: false, readonly: true, stateKeys: argv.stateKeys });
    let content: string | Uint8Array;
    try {
      content = await renderRunReport(reporter, store, argv.run);
    } finally {
      store.close();
    }
    const file = argv.out === undefined ? written('-', content) : writeReport(argv.out, content);
    const data = { runId: argv.run, format: reporter.format, mediaType: reporter.mediaType, out: argv.out ?? null, bytes: file.bytes, sha256: file.sha256, content: argv.out === undefined ? Buffer.from(content).toString('utf8') : null };
    if (output.mode === 'human' && argv.out === undefined) {
      process.stdout.write(content);
      return 0;
    }
    emit(output, 'RunReport', data, () => `wrote ${argv.out} (${reporter.format}, ${file.bytes} bytes)`);
    return 0;
  }),
});
