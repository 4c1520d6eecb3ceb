// `config show [FILE]`: the project config in effect and, for each setting, where its value came from.
import type { CommandModule } from 'yargs';
import type { ResolvedSettings } from '../../config/settings.js';
import { dbOption } from '../database-option.js';
import { handler, type GlobalArgs } from '../handler.js';
import { emit } from '../output.js';

interface ShowArgs extends GlobalArgs {
  file?: string;
}

const show = (settings: () => ResolvedSettings): CommandModule<GlobalArgs, ShowArgs> => ({
  command: 'show [file]',
  describe: 'Show the project config in effect (for a workflow FILE: the one its runs use) and where each value comes from',
  builder: (yargs) =>
    yargs
      .positional('file', { type: 'string', describe: 'a workflow file: search from its folder instead of the current one' })
      .option('db', dbOption('a database file, to see it shown as given by a flag')) as never,
  handler: handler<ShowArgs>(async (_argv, output) => {
    const { loaded, db, output: mode, color, packs, stateKeys } = settings();
    const entries = packs.value.map(({ at: _at, ...entry }) => entry);
    const data = { file: loaded.file, searchedFrom: loaded.searchedFrom, settings: { db, output: mode, color, packs: { value: entries, source: packs.source }, stateKeys } };
    emit(output, 'ConfigShow', data, () => {
      const where = loaded.file
        ? `config file: ${loaded.file}`
        : loaded.searchedFrom
          ? `no config file (searched from ${loaded.searchedFrom} up to the project root)`
          : 'no config file (--no-config)';
      const packList = entries.map((entry) => `${entry.name ?? entry.path}${entry.options === undefined ? '' : ` ${JSON.stringify(entry.options)}`}`).join(', ') || '(none)';
      const rows: [string, string, string][] = [
        ['db', db.value, db.source],
        ['output', mode.value, mode.source],
        ['color', color.value, color.source],
        ['packs', packList, packs.source],
        // Shown when the config names any: most projects have no encrypted state.
        ...(stateKeys.source === 'default' ? [] : [['stateKeys', Object.entries(stateKeys.value).map(([id, variable]) => `${id}=${variable}`).join(', '), stateKeys.source] as [string, string, string]]),
      ];
      const names = Math.max(7, ...rows.map((row) => row[0].length + 1));
      const width = Math.max(...rows.map((row) => row[1].length));
      return [where, ...rows.map(([name, value, source]) => `${name.padEnd(names)}${value.padEnd(width)}  from ${source}`)].join('\n');
    });
    return 0;
  }),
});

export const configCommand = (settings: () => ResolvedSettings): CommandModule<GlobalArgs, GlobalArgs> => ({
  command: 'config',
  describe: 'The project config (agentctl.config.*, .agentctlrc*, package.json#agentctl)',
  builder: (yargs) => yargs.command(show(settings)).demandCommand(1, 'name a config subcommand: show') as never,
  handler: () => undefined,
});
