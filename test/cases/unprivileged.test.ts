// Refusals that only an account without root's power over permissions meets: a {file:} secret that cannot be looked
// up, read or opened. The suite runs as root, so these run the CLI as an unprivileged user (test/support/unprivileged.ts).
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { workspace } from '../support/cli.js';
import { unprivileged } from '../support/unprivileged.js';
import { diagnosticWithCode, errorDocument, outcome, shellWorkflow } from './helpers.js';

const POLICY = { processAllowlist: ['sh'], environmentAllowlist: ['TOKEN'], approval: 'never', secretFileRoots: ['secrets', '/proc/self'] };
const CANARY = 'unprivileged-canary-7f3a';

describe('refusals an unprivileged user meets', function () {
  this.timeout(60_000);
  const cli = unprivileged();
  let ws: ReturnType<typeof workspace>;
  beforeEach(() => {
    ws = workspace();
    // The unprivileged account reads the workflow and may create the state folder, as a user's own folder allows.
    chmodSync(ws.dir, 0o777);
    mkdirSync(ws.file('secrets/locked'), { recursive: true });
    chmodSync(ws.file('secrets'), 0o755);
    writeFileSync(ws.file('secrets/closed'), `${CANARY}\n`, { mode: 0o000 });
    writeFileSync(ws.file('secrets/locked/token'), `${CANARY}\n`, { mode: 0o644 });
    chmodSync(ws.file('secrets/locked'), 0o700);
  });
  afterEach(() => ws.cleanup());

  const file = (path: string) => {
    const name = ws.write('wf.yaml', shellWorkflow({ command: 'sh', args: ['-c', 'true'], env: { TOKEN: { file: path } } }, POLICY));
    chmodSync(name, 0o644);
    return name;
  };
  const refusal = (args: string[], exitCode: number, fragment: string) => {
    const result = cli.run([...args, '--output', 'json'], ws.dir);
    expect(result.stdout + result.stderr).to.not.contain(CANARY);
    const found = diagnosticWithCode(exitCode === 2 ? errorDocument(result, 2) : outcome(result, exitCode), 'AGENTCTL_E_SECRET_FILE_UNREADABLE');
    expect(found.message).to.contain(fragment);
    return found;
  };

  it(`run: a secret file without read permission cannot be opened (${cli.who})`, () => {
    refusal(['run', file('secrets/closed'), '--db', join(ws.dir, 'state', 'runtime.db')], 2, 'cannot be opened (EACCES)');
  });

  it(`auth check: the same file cannot be read, asked without opening it (${cli.who})`, () => {
    refusal(['auth', 'check', file('secrets/closed')], 6, 'cannot be read (EACCES)');
  });

  it(`run and auth check: a secret below a folder it may not search cannot be looked up (${cli.who})`, () => {
    refusal(['run', file('secrets/locked/token'), '--db', join(ws.dir, 'state', 'runtime.db')], 2, 'cannot be looked up (EACCES)');
    refusal(['auth', 'check', file('secrets/locked/token')], 6, 'cannot be looked up (EACCES)');
  });

  it(`run: a file that opens but fails to read (/proc/self/mem) is unreadable (${cli.who})`, () => {
    refusal(['run', file('/proc/self/mem'), '--db', join(ws.dir, 'state', 'runtime.db')], 2, 'cannot be read (EIO)');
  });
});
