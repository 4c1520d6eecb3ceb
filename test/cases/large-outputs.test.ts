// A task's large output is not held for the rest of the run: later templates read it back from the ledger, and what
// they read is exactly what the task wrote.
import { expect } from 'chai';
import { baseEnv, runCli, workspace } from '../support/cli.js';
import { outcome, rows, unique, workflow } from './helpers.js';
import { encryptionCase, encryptionTools, expectNowhere, type EncryptionCase } from './state-encryption-support.js';

const MiB = 1024 * 1024;
// Above the 1 Mi characters that make a value large, so each recording collects what the run no longer holds.
const FLOOD_BYTES = 2 * MiB;

/** An action printing exactly `bytes` bytes of `word` lines, and a little on stderr. */
const flood = (word: string, bytes = FLOOD_BYTES) => ({
  kind: 'builtin.shell.exec',
  command: 'sh',
  args: ['-c', `yes ${word} | head -c ${bytes}; echo done >&2`],
  stdoutLimitBytes: 4 * MiB,
  combinedOutputLimitBytes: 4 * MiB,
});

const expected = (word: string, bytes = FLOOD_BYTES) => `${word}\n`.repeat(Math.ceil(bytes / (word.length + 1))).slice(0, bytes);

describe('large task outputs', () => {
  let ws: ReturnType<typeof workspace>;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  it('a large output read after later floods were recorded is the output the task wrote, in templates and in the ledger', () => {
    ws.write(
      'wf.yaml',
      workflow({
        policy: { processAllowlist: ['sh', 'echo'], approval: 'never' },
        actions: { first: flood('alpha'), second: flood('beta'), third: flood('gamma'), echo: { kind: 'builtin.shell.exec', command: 'echo' } },
        tasks: [
          { id: 'first', uses: 'action:first' },
          { id: 'second', uses: 'action:second', needs: ['first'] },
          { id: 'third', uses: 'action:third', needs: ['second'] },
          // Rendered after two more floods were recorded: the first one's output is read back here.
          { id: 'tell', uses: 'action:echo', needs: ['first', 'third'], with: { args: ['code ${{ tasks.first.output.exitCode }}', '${{ tasks.first.output.stderr }}'] } },
        ],
        outputs: { first: '${{ tasks.first.output.stdout }}', third: '${{ tasks.third.output.stdout }}', whole: '${{ tasks.second.output }}' },
      }),
    );
    const document = outcome(runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json']), 0);
    expect(document.data.state).to.equal('succeeded');
    expect(document.data.output.first === expected('alpha'), 'first output read back').to.equal(true);
    expect(document.data.output.third === expected('gamma'), 'third output').to.equal(true);
    expect(document.data.output.whole).to.deep.equal({ exitCode: 0, stdout: expected('beta'), stderr: 'done\n' });
    const tasks = rows(ws.db, `SELECT task_id, output_json FROM tasks ORDER BY position`) as { task_id: string; output_json: string }[];
    expect(JSON.parse(tasks[3]!.output_json)).to.deep.equal({ exitCode: 0, stdout: 'code 0 done\n\n', stderr: '' });
    expect(JSON.parse(tasks[0]!.output_json)).to.deep.equal({ exitCode: 0, stdout: expected('alpha'), stderr: 'done\n' });
  });

  it('a large output holding a secret value reads as it did: redacted in the ledger and in the run outputs', () => {
    const secret = 'S3cretLargeOutputValue';
    const leaky = { ...flood('"$TOKEN"'), env: { TOKEN: { env: 'LARGE_OUTPUT_SECRET' } } };
    ws.write(
      'wf.yaml',
      workflow({
        policy: { processAllowlist: ['sh'], environmentAllowlist: ['TOKEN'], approval: 'never' },
        actions: { first: leaky, second: flood('beta') },
        tasks: [
          { id: 'first', uses: 'action:first' },
          { id: 'second', uses: 'action:second', needs: ['first'] },
        ],
        outputs: { first: '${{ tasks.first.output.stdout }}' },
      }),
    );
    const document = outcome(runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json'], { env: baseEnv({ LARGE_OUTPUT_SECRET: secret }) }), 0);
    expect(document.data.state).to.equal('succeeded');
    const first = String(document.data.output.first);
    expect(first.includes(secret), 'secret in the run output').to.equal(false);
    expect(first.startsWith('[REDACTED]\n[REDACTED]\n')).to.equal(true);
    const recorded = rows(ws.db, `SELECT output_json FROM tasks WHERE task_id = 'first'`) as { output_json: string }[];
    expect(recorded[0]!.output_json.includes(secret), 'secret in the ledger').to.equal(false);
  });

  describe('on an encrypted database', function () {
    this.timeout(120_000);
    let current: EncryptionCase;
    beforeEach(() => (current = encryptionCase()));
    afterEach(() => current.ws.cleanup());
    const { withKeys, enable } = encryptionTools(() => current);

    it('a large output read back after a later flood is opened through the key, and no byte of the files holds it', () => {
      const word = unique('sealed');
      const file = current.ws.write(
        'large.yaml',
        workflow({
          policy: { processAllowlist: ['sh'], approval: 'never' },
          actions: { first: flood(word), second: flood('beta') },
          tasks: [
            { id: 'first', uses: 'action:first' },
            { id: 'second', uses: 'action:second', needs: ['first'] },
          ],
          outputs: { first: '${{ tasks.first.output.stdout }}' },
        }),
      );
      outcome(enable(), 0);
      const document = outcome(withKeys('run', file), 0);
      expect(document.data.state).to.equal('succeeded');
      expect(document.data.output.first === expected(word), 'first output read back').to.equal(true);
      expectNowhere(current.ws.db, word);
    });
  });
});
