// `agentctl packs new NAME [--dir DIR] [--force]`: scaffolds a code pack in TypeScript (pack-scaffold.ts). No project
// config, database or pack is needed or touched.
import { relative } from 'node:path';
import type { CommandModule } from 'yargs';
import { packNames, scaffoldFiles, targetFolder, writeScaffold } from '../pack-scaffold.js';
import { handler, type GlobalArgs } from '../handler.js';
import { emit } from '../output.js';

interface NewArgs extends GlobalArgs {
  name: string;
  dir?: string;
  force: boolean;
}

/** A path as typed at the terminal: relative to the current folder when below it. */
const shown = (path: string) => {
  const below = relative(process.cwd(), path);
  return below === '' ? '.' : below.startsWith('..') ? path : below;
};

export const newPackCommand: CommandModule<GlobalArgs, NewArgs> = {
  command: 'new <name>',
  describe: 'Create a code pack in TypeScript: one action kind, its tests, an example workflow, a README',
  builder: (yargs) =>
    yargs
      .positional('name', { type: 'string', demandOption: true, describe: 'the npm name of the pack (name or @scope/name)' })
      .option('dir', { type: 'string', describe: 'the folder to create (default: the name without its scope, in the current folder)' })
      .option('force', { type: 'boolean', default: false, describe: "write into a folder that is not empty (the pack's files replace files of the same names)" }) as never,
  handler: handler<NewArgs>(async (argv, output) => {
    const names = await packNames(String(argv.name));
    const folder = targetFolder(names, argv.dir, process.cwd());
    const files = scaffoldFiles(names, folder);
    const state = writeScaffold(folder, files, argv.force);
    const data = { name: names.name, namespace: names.namespace, actionKinds: [names.kind], errorCodePrefix: names.errorPrefix, path: folder, created: state !== 'existing', files: Object.keys(files).sort() };
    emit(output, 'PackScaffold', data, () =>
      [
        `created pack ${names.name} in ${shown(folder)}${state === 'existing' ? ' (its files written into the existing folder)' : ''}: action kind ${names.kind}`,
        ...data.files.map((file) => `  ${file}`),
        'next:',
        `  cd ${shown(folder)}`,
        '  npm install',
        '  npm test',
      ].join('\n'),
    );
    return 0;
  }),
};
