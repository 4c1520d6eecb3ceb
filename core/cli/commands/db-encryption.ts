// `db encryption inventory|enable|rotate`: the reference's state encryption. Keys come from environment variables named
// by --key-env; the database records the key id and the variable name, never the key (docs/state-encryption.md).
import type { Argv, CommandModule } from 'yargs';
import { AgentctlError } from '@agentctl/sdk';
import { checkReference, type KeyReference } from '../../store/state-keys.js';
import { Store, type EncryptionMigration } from '../../store/store.js';
import { handler, type GlobalArgs } from '../handler.js';
import { emit } from '../output.js';
import { databasePath, dbOption } from '../database-option.js';

interface EncryptionArgs extends GlobalArgs {
  db?: string;
}

interface KeyArgs extends EncryptionArgs {
  keyId: string;
  keyEnv: string;
  dryRun?: boolean;
}

/** A test-only crash point inside the rewrite: after this many values the process kills itself (SIGKILL). */
const KILL_AFTER = 'AGENTCTL_TEST_ENCRYPTION_KILL_AFTER';

const inventory: CommandModule<GlobalArgs, EncryptionArgs> = {
  command: 'inventory',
  describe: 'Count the protected values by what they hold (envelopes, plaintext, invalid envelopes) without showing any',
  builder: (yargs) => yargs.option('db', dbOption()) as never,
  handler: handler<EncryptionArgs>(async (argv, output) => {
    // Read-only, like db stats; an encrypted database still needs its key, to authenticate every envelope.
    const store = Store.open(databasePath(argv.db), { create: false, readonly: true, stateKeys: argv.stateKeys });
    try {
      const data = store.encryption.inventory();
      emit(output, 'EncryptionInventory', data, () =>
        `state encryption: ${data.enabled ? `enabled key=${data.keyId} reference=${data.keyReference}` : 'disabled'}; protected=${data.protectedValues}, encrypted=${data.encryptedValues}, plaintext=${data.plaintextValues}, invalid=${data.invalidEnvelopes}${data.scrubPending ? '; the values a rewrite replaced may still be in the file (run the same enable or rotate again)' : ''}`,
      );
      return 0;
    } finally {
      store.close();
    }
  }),
};

const keyOptions = (describe: string) => (yargs: Argv) =>
  yargs
    .option('db', dbOption())
    .option('key-id', { type: 'string', demandOption: true, describe })
    .option('key-env', { type: 'string', demandOption: true, describe: 'Environment variable containing a base64-encoded 32-byte key' })
    .option('dry-run', { type: 'boolean', describe: 'Count what would be rewritten; change nothing' }) as never;

/** The --key-id and --key-env values, checked (each given once, well formed). */
function reference(argv: KeyArgs): KeyReference {
  for (const [flag, value] of [['--key-id', argv.keyId], ['--key-env', argv.keyEnv]] as const) {
    if (Array.isArray(value)) throw new AgentctlError('AGENTCTL_E_USAGE', `${flag} was given ${value.length} times; give it once`);
    if (typeof value !== 'string' || value === '') throw new AgentctlError('AGENTCTL_E_USAGE', `${flag} needs a value`);
  }
  const given = { keyId: argv.keyId, variable: argv.keyEnv };
  checkReference(given);
  return given;
}

function killAfter(): number | undefined {
  const text = process.env[KILL_AFTER];
  return text && /^\d+$/.test(text) ? Number(text) : undefined;
}

function migration(operation: 'enable' | 'rotate', describe: string): CommandModule<GlobalArgs, KeyArgs> {
  return {
    command: operation,
    describe,
    builder: keyOptions(operation === 'enable' ? 'The id the key is recorded under' : 'The id of the new key'),
    handler: handler<KeyArgs>(async (argv, output) => {
      const key = reference(argv);
      const dryRun = argv.dryRun === true;
      // A dry run reads only: the file is left byte for byte as it was.
      const store = Store.open(databasePath(argv.db), { create: !dryRun && operation === 'enable', readonly: dryRun, stateKeys: argv.stateKeys });
      try {
        const crashAt = killAfter();
        const options = { dryRun, ...(crashAt === undefined ? {} : { killAfter: crashAt }) };
        const data: EncryptionMigration = operation === 'enable' ? store.encryption.enable(key, options) : store.encryption.rotate(key, options);
        emit(output, 'EncryptionMigration', data, () => {
          const verb = operation === 'enable' ? (dryRun ? 'planned state encryption' : 'enabled state encryption') : dryRun ? 'planned state-encryption rotation' : 'completed state-encryption rotation';
          const scrub = dryRun || data.scrubbed ? '' : '; the replaced values may still be in the file or its -wal: run the same command again when no other agentctl uses the database';
          return `${verb} ${operation === 'enable' ? 'with' : 'to'} key ${data.keyId}: scanned ${data.valuesScanned}, rewrote ${data.valuesRewritten}${scrub}`;
        });
        return 0;
      } finally {
        store.close();
      }
    }),
  };
}

export const encryptionCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'encryption',
  describe: 'Encrypt the sensitive state of the database, rotate its key, or count what is protected',
  builder: (yargs) =>
    yargs
      .command(inventory)
      .command(migration('enable', 'Encrypt every protected value with a new key, in one transaction'))
      .command(migration('rotate', 'Re-encrypt every protected value with a new key, in one transaction'))
      .demandCommand(1, 'name a db encryption subcommand: inventory, enable, rotate') as never,
  handler: () => undefined,
};
