// Secrets: a canary value reaches the child but never stdout, stderr, the database, its WAL or inspect.
import { createHmac, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { baseEnv, parseDocument, ROOT, runCli, startCli, workspace, type CliResult } from '../support/cli.js';
import { bytesOf, diagnosticWithCode, errorDocument, finished, liveProcessesWith, outcome, rows, runCount, shellWorkflow, uniqueSleep, waitFor, withDb, workflow } from './helpers.js';

type Workspace = ReturnType<typeof workspace>;

const POLICY = { processAllowlist: ['sh'], environmentAllowlist: ['TOKEN'], approval: 'never' };
const ECHO_BOTH = (exit: number) => ({ command: 'sh', args: ['-c', `echo $TOKEN; echo $TOKEN >&2; exit ${exit}`], env: { TOKEN: { env: 'CANARY' } } });

describe('secrets', () => {
  let ws: Workspace;
  let canary: string;
  let held: Database.Database | undefined;
  beforeEach(() => {
    ws = workspace();
    canary = randomBytes(16).toString('hex');
  });
  afterEach(() => {
    held?.close();
    held = undefined;
    ws.cleanup();
  });

  /** Creates the database with an unrelated run and keeps a connection open so the WAL file outlives the CLI. */
  function holdDatabase(): void {
    outcome(runCli(['run', join(ROOT, 'examples', 'hello.yaml'), '--db', ws.db, '--output', 'json']), 0);
    held = new Database(ws.db);
    held.prepare('SELECT COUNT(*) FROM runs').get();
  }

  /** The canary (or each given text, as UTF-8) must not be in any stored byte: the database, its WAL and shared-memory files. */
  function assertNotStored(needles: readonly string[] = [canary]): void {
    for (const needle of needles) {
      const bytes = Buffer.from(needle, 'utf8').toString('latin1');
      for (const suffix of ['', '-wal', '-shm', '-journal']) {
        expect(bytesOf(`${ws.db}${suffix}`).includes(bytes), `${JSON.stringify(needle)} in ${ws.db}${suffix}`).to.equal(false);
      }
    }
  }

  /** Neither the streams of an invocation nor any byte stored may hold any of the texts. */
  function assertNowhere(result: CliResult, needles: readonly string[]): void {
    for (const needle of needles) {
      expect(result.stdout.includes(needle), `${JSON.stringify(needle)} in stdout`).to.equal(false);
      expect(result.stderr.includes(needle), `${JSON.stringify(needle)} in stderr`).to.equal(false);
    }
    assertNotStored(needles);
    const columns = everyColumn();
    for (const needle of needles) expect(columns.filter((cell) => cell.text.includes(needle)).map((cell) => cell.where), JSON.stringify(needle)).to.deep.equal([]);
  }

  /** Every value of every column of every table, as text (blobs as latin1 and hex). */
  function everyColumn(): { where: string; text: string }[] {
    return withDb(ws.db, (db) => {
      const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`).all() as { name: string }[];
      return tables.flatMap(({ name }) =>
        (db.prepare(`SELECT * FROM "${name}"`).all() as Record<string, unknown>[]).flatMap((row) =>
          Object.entries(row).map(([column, value]) => ({
            where: `${name}.${column}`,
            text: Buffer.isBuffer(value) ? `${value.toString('latin1')} ${value.toString('hex')}` : String(value),
          })),
        ),
      );
    });
  }

  const digestKey = (): Buffer => rows(ws.db, `SELECT value FROM metadata WHERE key = 'secret_digest_key'`)[0].value;
  const keyed = (key: Buffer, value: string) => `hmac-sha256:${createHmac('sha256', key).update(value, 'utf8').digest('hex')}`;

  for (const variant of [
    { title: 'a task that succeeds', exit: 0, cliExit: 0 },
    { title: 'a task that fails with exit 1 (the error path)', exit: 1, cliExit: 4 },
  ]) {
    it(`${variant.title}: the canary is redacted everywhere`, () => {
      holdDatabase();
      ws.write('wf.yaml', shellWorkflow(ECHO_BOTH(variant.exit), POLICY));
      const result = runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json'], { env: baseEnv({ CANARY: canary }) });
      expect(result.status, result.stderr).to.equal(variant.cliExit);
      expect(result.stdout.includes(canary), 'canary in stdout').to.equal(false);
      expect(result.stderr.includes(canary), 'canary in stderr').to.equal(false);

      // The WAL still exists (a connection is held) and holds this run's pages: the check is meaningful.
      expect(existsSync(`${ws.db}-wal`)).to.equal(true);
      const runId = variant.exit === 0 ? parseDocument(result.stdout).data.runId : parseDocument(result.stderr).error.runId;
      expect(bytesOf(`${ws.db}-wal`).includes(runId), 'run id in the WAL').to.equal(true);
      assertNotStored();

      const inspect = runCli(['inspect', runId, '--db', ws.db, '--output', 'json']);
      expect(inspect.status, inspect.stderr).to.equal(0);
      expect(inspect.stdout.includes(canary), 'canary in inspect').to.equal(false);
      const view = parseDocument(inspect.stdout).data;
      const [effect] = view.effects;
      expect(effect.result).to.deep.include({ stdout: '[REDACTED]\n', stderr: '[REDACTED]\n' });
      // The digest is keyed with the database's own key, never a plain hash of the value.
      expect(effect.input.env).to.deep.equal({ TOKEN: { secret: { env: 'CANARY' }, digest: keyed(digestKey(), canary) } });
      if (variant.exit === 1) {
        expect(effect.state).to.equal('failed');
        const error = parseDocument(result.stderr);
        expect(diagnosticWithCode(error, 'AGENTCTL_E_PROCESS_EXIT').message).to.contain('[REDACTED]');
      } else {
        expect(effect.state).to.equal('succeeded');
      }
      held!.close();
      held = undefined;
      assertNotStored();
    });
  }

  it('human mode: neither the summary nor the progress lines show the canary', () => {
    ws.write('wf.yaml', shellWorkflow(ECHO_BOTH(1), POLICY));
    const result = runCli(['run', ws.file('wf.yaml'), '--db', ws.db], { env: baseEnv({ CANARY: canary }) });
    expect(result.status).to.equal(4);
    expect(result.stdout.includes(canary)).to.equal(false);
    expect(result.stderr.includes(canary)).to.equal(false);
    expect(result.stderr).to.contain('[REDACTED]');
    const [run] = rows(ws.db, 'SELECT id FROM runs');
    const inspect = runCli(['inspect', run.id, '--db', ws.db]);
    expect(inspect.status).to.equal(0);
    expect(inspect.stdout.includes(canary)).to.equal(false);
    assertNotStored();
  });

  it('output cut by a byte limit in the middle of the secret leaves no prefix of it', () => {
    const action = { command: 'sh', args: ['-c', 'printf "ab%s" "$TOKEN"'], env: { TOKEN: { env: 'CANARY' } }, stdoutLimitBytes: 12 };
    ws.write('wf.yaml', shellWorkflow(action, POLICY));
    const result = runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json'], { env: baseEnv({ CANARY: canary }) });
    errorDocument(result, 4);
    const prefix = canary.slice(0, 10);
    expect(result.stderr.includes(prefix)).to.equal(false);
    expect(bytesOf(ws.db).includes(prefix)).to.equal(false);
    const [effect] = rows(ws.db, 'SELECT result_json FROM effects');
    expect(JSON.parse(effect.result_json).stdout).to.equal('ab[REDACTED]');
  });

  it('a secret with quotes, a backslash and a newline is redacted in its raw and JSON-escaped forms', () => {
    const tricky = `q"${randomBytes(6).toString('hex')}\\z\n${randomBytes(6).toString('hex')}`;
    const escaped = JSON.stringify(tricky).slice(1, -1);
    ws.write('wf.yaml', shellWorkflow({ command: 'sh', args: ['-c', 'printf "%s" "$TOKEN"; printf "%s" "$TOKEN" >&2; exit 1'], env: { TOKEN: { env: 'CANARY' } } }, POLICY));
    const result = runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json'], { env: baseEnv({ CANARY: tricky }) });
    errorDocument(result, 4);
    for (const form of [tricky, escaped]) {
      expect(result.stdout.includes(form)).to.equal(false);
      expect(result.stderr.includes(form)).to.equal(false);
      expect(bytesOf(ws.db).includes(form)).to.equal(false);
    }
    const [effect] = rows(ws.db, 'SELECT result_json FROM effects');
    expect(JSON.parse(effect.result_json)).to.deep.include({ stdout: '[REDACTED]', stderr: '[REDACTED]' });
  });

  it('a secret that is not set: exit 4, AGENTCTL_E_SECRET_MISSING, no run', () => {
    ws.write('wf.yaml', shellWorkflow(ECHO_BOTH(0), POLICY));
    const document = errorDocument(runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json']), 4);
    const found = diagnosticWithCode(document, 'AGENTCTL_E_SECRET_MISSING');
    expect(found.message).to.contain('CANARY');
    expect(document.error.runId).to.equal(null);
    expect(runCount(ws.db)).to.equal(0);
  });

  describe('every shape a secret is printed in', () => {
    const base64Line = () => randomBytes(48).toString('base64');
    const node = process.execPath;
    // What Python's json.dumps prints by default: ASCII only, every other character as \uXXXX (astral: a surrogate pair).
    const pythonJson = `process.stdout.write('{"password": ' + JSON.stringify(process.env.TOKEN).replace(/[^\\x20-\\x7e]/g, (c) => '\\\\u' + c.charCodeAt(0).toString(16).padStart(4, '0')) + '}')`;
    const shapes = [
      {
        title: 'a value ending in a newline, printed trimmed',
        value: (canary: string) => ({ secret: `${canary}\n`, needles: [canary] }),
        action: { command: 'sh', args: ['-c', `printf 'v=%s;' $TOKEN`] },
        stdout: 'v=[REDACTED];',
      },
      {
        title: 'a value with surrounding whitespace, printed trimmed',
        value: (canary: string) => ({ secret: `\t ${canary}  \n`, needles: [canary] }),
        action: { command: 'sh', args: ['-c', `printf '[%s]' $TOKEN`] },
        stdout: '[[REDACTED]]',
      },
      {
        title: 'a multi-line PEM-like value, printed line by line with \\r\\n endings',
        value: (canary: string) => {
          const lines = [`${canary}${base64Line()}`, base64Line(), base64Line().slice(0, 20)];
          return { secret: `-----BEGIN TEST KEY-----\n${lines.join('\n')}\n-----END TEST KEY-----\n`, needles: [canary, ...lines] };
        },
        action: { command: 'sh', args: ['-c', `printf '%s' "$TOKEN" | while IFS= read -r line; do printf 'line: %s\\r\\n' "$line"; done`] },
        stdout: 'line: [REDACTED]\r\n'.repeat(5),
      },
      {
        title: 'a non-ASCII value printed JSON-escaped as \\uXXXX (as Python json.dumps does)',
        value: (canary: string) => {
          const secret = `pässwörd-${canary}-🔑`;
          return { secret, needles: [canary, secret, `p\\u00e4ssw\\u00f6rd-${canary}-\\ud83d\\udd11`] };
        },
        action: { command: node, args: ['-e', pythonJson] },
        stdout: '{"password": "[REDACTED]"}',
      },
    ];
    for (const shape of shapes) {
      it(`${shape.title}: redacted in the output, the ledger and its files`, () => {
        holdDatabase();
        const { secret, needles } = shape.value(canary);
        const policy = { ...POLICY, processAllowlist: ['sh', basename(node)] };
        ws.write('wf.yaml', shellWorkflow({ ...shape.action, env: { TOKEN: { env: 'CANARY' } } }, policy, {}, { outputs: { printed: '${{ tasks.cmd.output.stdout }}' } }));
        const result = runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json'], { env: baseEnv({ CANARY: secret }) });
        const document = outcome(result, 0);
        expect(document.data.output).to.deep.equal({ printed: shape.stdout });
        const [effect] = rows(ws.db, 'SELECT result_json FROM effects WHERE run_id = ?', document.data.runId);
        expect(JSON.parse(effect.result_json)).to.deep.equal({ exitCode: 0, stdout: shape.stdout, stderr: '' });
        expect(existsSync(`${ws.db}-wal`)).to.equal(true);
        assertNowhere(result, needles);
        const inspect = runCli(['inspect', document.data.runId, '--db', ws.db, '--output', 'json']);
        expect(inspect.status, inspect.stderr).to.equal(0);
        for (const needle of needles) expect(inspect.stdout.includes(needle), `${JSON.stringify(needle)} in inspect`).to.equal(false);
      });
    }
  });

  describe('output cut in the middle of a secret keeps no prefix of it', () => {
    const PRINT_PREFIX = `printf 'ab%.10s' "$TOKEN"`;

    it('cut by the action timeout: the effect is uncertain and its output ends with [REDACTED]', () => {
      const duration = uniqueSleep(30);
      ws.write('wf.yaml', shellWorkflow({ command: 'sh', args: ['-c', `${PRINT_PREFIX}; exec sleep ${duration}`], env: { TOKEN: { env: 'CANARY' } }, timeoutSeconds: 1 }, POLICY));
      const result = runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json'], { env: baseEnv({ CANARY: canary }) });
      diagnosticWithCode(errorDocument(result, 4), 'AGENTCTL_E_PROCESS_TIMEOUT');
      const [effect] = rows(ws.db, 'SELECT state, result_json FROM effects');
      expect(effect.state).to.equal('uncertain');
      expect(JSON.parse(effect.result_json)).to.deep.equal({ stdout: 'ab[REDACTED]', stderr: '' });
      assertNowhere(result, [canary.slice(0, 10)]);
    });

    it('cut by a cancellation (SIGTERM of agentctl): exit 130 and its output ends with [REDACTED]', async () => {
      const duration = uniqueSleep(300);
      ws.write('wf.yaml', shellWorkflow({ command: 'sh', args: ['-c', `${PRINT_PREFIX}; : > printed; exec sleep ${duration}`], env: { TOKEN: { env: 'CANARY' } }, timeoutSeconds: 600 }, POLICY));
      const child = startCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json'], { env: baseEnv({ CANARY: canary }) });
      const done = finished(child);
      try {
        await waitFor('the prefix to be printed', () => existsSync(ws.file('printed')) && liveProcessesWith(duration).length === 1);
        // The bytes are in the pipe; give agentctl a moment to read them before it is told to stop.
        await new Promise((resolve) => setTimeout(resolve, 300));
        child.kill('SIGTERM');
        const result = await done;
        expect(outcome(result, 130).data.state).to.equal('cancelled');
        const [effect] = rows(ws.db, 'SELECT state, result_json, error_json FROM effects');
        expect(effect.state).to.equal('uncertain');
        expect(JSON.parse(effect.error_json).code).to.equal('AGENTCTL_E_CANCELLED');
        expect(JSON.parse(effect.result_json)).to.deep.equal({ stdout: 'ab[REDACTED]', stderr: '' });
        assertNowhere(result, [canary.slice(0, 10)]);
      } finally {
        child.kill('SIGKILL');
        for (const entry of liveProcessesWith(duration)) process.kill(entry.pid, 'SIGKILL');
      }
    });
  });

  for (const [title, value] of [
    ['three characters', 'Q7z'],
    ['two characters with surrounding whitespace', '  Q7\n'],
    ['an empty value', ''],
  ] as const) {
    it(`a secret value too short to redact (${title}): exit 2, AGENTCTL_E_SECRET_TOO_SHORT, nothing recorded`, () => {
      ws.write('wf.yaml', shellWorkflow(ECHO_BOTH(0), POLICY));
      const result = runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json'], { env: baseEnv({ CANARY: value }) });
      const document = errorDocument(result, 2);
      expect(document.error.runId).to.equal(null);
      const found = diagnosticWithCode(document, 'AGENTCTL_E_SECRET_TOO_SHORT');
      expect(found).to.deep.include({ path: 'spec.actions.cmd', severity: 'error' });
      expect(found.message).to.contain('{"env":"CANARY"}').and.to.contain('shorter than 4 characters');
      expect(found.help).to.contain('at least 4 characters');
      if (value.trim() !== '') expect(result.stderr.includes(value.trim())).to.equal(false);
      expect(runCount(ws.db)).to.equal(0);
      // Not even the digest key is created: a refused preflight leaves the database as it was.
      expect(existsSync(ws.db) ? rows(ws.db, 'SELECT key FROM metadata') : []).to.deep.equal([]);
    });
  }

  it('a secret such as "exec" or "code" never changes a JSON key: every stored document keeps its structure', () => {
    const action = { command: 'sh', args: ['-c', 'echo $TOKEN $OTHER; exit 1'], env: { TOKEN: { env: 'FIRST' }, OTHER: { env: 'SECOND' } } };
    ws.write('wf.yaml', shellWorkflow(action, { ...POLICY, environmentAllowlist: ['TOKEN', 'OTHER'] }));
    const result = runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json'], { env: baseEnv({ FIRST: 'exec', SECOND: 'code' }) });
    diagnosticWithCode(errorDocument(result, 4), 'AGENTCTL_E_PROCESS_EXIT');
    const [effect] = rows(ws.db, 'SELECT input_json, result_json, error_json FROM effects');
    expect(Object.keys(JSON.parse(effect.input_json))).to.deep.equal(['command', 'executable', 'args', 'cwd', 'env', 'isolation', 'limits']);
    expect(JSON.parse(effect.result_json)).to.deep.equal({ exitCode: 1, signal: null, stdout: '[REDACTED] [REDACTED]\n', stderr: '' });
    expect(JSON.parse(effect.error_json).code).to.equal('AGENTCTL_E_PROCESS_EXIT');
    const [task] = rows(ws.db, 'SELECT error_json FROM tasks');
    expect(JSON.parse(task.error_json).code).to.equal('AGENTCTL_E_PROCESS_EXIT');
    // No key of any stored document was touched.
    const keys = (value: unknown): string[] =>
      value !== null && typeof value === 'object' ? Object.entries(value).flatMap(([key, inner]) => [...(Array.isArray(value) ? [] : [key]), ...keys(inner)]) : [];
    const documents = everyColumn().filter((cell) => cell.where.endsWith('_json') && cell.text !== 'null');
    expect(documents.length).to.be.greaterThan(10);
    for (const cell of documents) expect(keys(JSON.parse(cell.text)).filter((key) => key.includes('[REDACTED]')), cell.where).to.deep.equal([]);
  });

  it('a run input that repeats a secret value is redacted in every column, the plan snapshot included', () => {
    const spec = {
      inputs: { token: 'none' },
      outputs: { echoed: '${{ tasks.keep.output.output.copy }}' },
      policy: POLICY,
      actions: { cmd: { kind: 'builtin.shell.exec', ...ECHO_BOTH(0) }, keep: { kind: 'builtin.assign' } },
      tasks: [
        { id: 'cmd', uses: 'action:cmd' },
        { id: 'keep', uses: 'action:keep', with: { copy: '${{ inputs.token }}' } },
      ],
    };
    ws.write('wf.yaml', workflow(spec));
    const result = runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json', '--input', `token=${JSON.stringify(canary)}`], { env: baseEnv({ CANARY: canary }) });
    expect(outcome(result, 0).data.output).to.deep.equal({ echoed: '[REDACTED]' });
    const [run] = rows(ws.db, 'SELECT plan_json, inputs_json FROM runs');
    expect(JSON.parse(run.plan_json).inputs).to.deep.equal({ token: '[REDACTED]' });
    expect(JSON.parse(run.inputs_json)).to.deep.equal({ token: '[REDACTED]' });
    // The task's input held the secret: its recorded digest is keyed too.
    const [keep] = rows(ws.db, `SELECT input_json FROM tasks WHERE task_id = 'keep'`);
    expect(JSON.parse(keep.input_json)).to.deep.equal({ value: { copy: '[REDACTED]' }, digest: keyed(digestKey(), JSON.stringify({ copy: canary })) });
    assertNowhere(result, [canary]);
  });

  it('the digest key is 32 random bytes made once per database: the same secret digests alike in one database, differently in another', () => {
    ws.write('wf.yaml', shellWorkflow(ECHO_BOTH(0), POLICY));
    const other = workspace();
    try {
      const digests = [ws.db, ws.db, other.db].map((db) => {
        const result = runCli(['run', ws.file('wf.yaml'), '--db', db, '--output', 'json'], { env: baseEnv({ CANARY: canary }) });
        const runId = outcome(result, 0).data.runId;
        return JSON.parse(rows(db, 'SELECT input_json FROM effects WHERE run_id = ?', runId)[0].input_json).env.TOKEN.digest as string;
      });
      const key = digestKey();
      expect(key.length).to.equal(32);
      expect(rows(ws.db, 'SELECT key FROM metadata')).to.deep.equal([{ key: 'secret_digest_key' }]);
      expect(digests[0]).to.equal(keyed(key, canary));
      expect(digests[1]).to.equal(digests[0]);
      expect(digests[2]).to.match(/^hmac-sha256:[0-9a-f]{64}$/).and.not.to.equal(digests[0]);
    } finally {
      other.cleanup();
    }
  });
});
