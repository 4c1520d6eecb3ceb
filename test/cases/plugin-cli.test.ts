// A pack's declared code and exit code reach the CLI's JSON envelope, through the real CLI entry (`main`) in a child
// process. The pack imports its own copy of the SDK, as a bundled pack would: its errors are still recognised.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { baseEnv, embeddedPackCli, type workspace } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, runCount, workflow } from './helpers.js';

const PACK = `
import { z } from 'zod';
import { AgentctlError, defineActionKind } from './sdk-copy/index.js';

export default defineActionKind({
  name: 'acme.job',
  plugin: 'acme-pack',
  version: '1.0.0',
  hostRange: '^0.1.0',
  description: 'A job that fails the way ACME_MODE says.',
  errorCodes: { ACME_PACK_E_QUOTA: { exitCode: 6, description: 'The ACME API quota is exhausted.' } },
  actionSchema: z.strictObject({}),
  inputSchema: z.strictObject({}),
  effect: { effectClass: 'external_mutate', risk: 'medium', idempotency: 'keyed' },
  setup(api) {
    api.hooks.preflight.tapPromise('acme-pack', async () => {
      if (process.env.ACME_MODE === 'preflight') throw new AgentctlError('ACME_PACK_E_QUOTA', 'quota exhausted before the run', { help: 'wait for the quota to reset' });
    });
  },
  async dispatch({ log }) {
    log.info('starting the job');
    log.warn('two\\nlines \\u001b[31mred');
    if (process.env.ACME_MODE === 'undeclared') throw new AgentctlError('ACME_PACK_E_SURPRISE', 'something the pack never declared');
    throw new AgentctlError('ACME_PACK_E_QUOTA', 'quota exhausted during the job');
  },
});
`;

describe('a pack through the CLI entry', () => {
  let ws: ReturnType<typeof workspace>;
  let entry: string;

  before(() => {
    ({ ws, entry } = embeddedPackCli(PACK));
    ws.write('wf.yaml', workflow({ policy: { approval: 'never' }, actions: { job: { kind: 'acme.job' } }, tasks: [{ id: 'job', uses: 'action:job' }] }));
  });
  after(() => ws.cleanup());

  const cli = (mode: string, ...args: string[]) =>
    spawnSync(process.execPath, [entry, ...args], { cwd: ws.dir, env: baseEnv({ ACME_MODE: mode }), encoding: 'utf8', timeout: 60_000 });

  it('plugins list shows the pack with what it owns', () => {
    const result = cli('none', 'plugins', 'list');
    expect(result.status).to.equal(0);
    expect(result.stdout).to.contain('acme-pack@1.0.0  local  owns kind acme.job, code ACME_PACK_E_QUOTA');
  });

  it('a declared code raised in preflight ends the invocation with its exit code, before any run exists', () => {
    const document = errorDocument(cli('preflight', 'run', 'wf.yaml', '--db', ws.db, '--output', 'json'), 6);
    const item = diagnosticWithCode(document, 'ACME_PACK_E_QUOTA');
    expect(item).to.include({ plugin: 'acme-pack', hook: 'preflight', help: 'wait for the quota to reset' });
    expect(runCount(ws.db)).to.equal(0);
  });

  it('a declared remote code that fails a task makes the run exit with that code', () => {
    const document = errorDocument(cli('task', 'run', 'wf.yaml', '--db', ws.db, '--output', 'json'), 6);
    expect(document.error.runId).to.match(/^run_/);
    expect(diagnosticWithCode(document, 'ACME_PACK_E_QUOTA')).to.include({ plugin: 'acme-pack', hook: 'dispatch:acme.job', taskId: 'job' });
  });

  it('an undeclared code is reported as AGENTCTL_E_PLUGIN naming the pack and the original code', () => {
    const document = errorDocument(cli('undeclared', 'run', 'wf.yaml', '--db', ws.db, '--output', 'json'), 4);
    const item = diagnosticWithCode(document, 'AGENTCTL_E_PLUGIN');
    expect(item).to.include({ plugin: 'acme-pack', hook: 'dispatch:acme.job' });
    expect(item.message).to.contain('ACME_PACK_E_SURPRISE');
  });

  it("a pack's log lines show in human progress on stderr, on one line and inert, and nowhere in JSON output", () => {
    const human = cli('task', 'run', 'wf.yaml', '--db', ws.db);
    expect(human.stderr).to.contain('log job acme.job info: starting the job');
    expect(human.stderr).to.match(/log job acme\.job warn: two\\nlines \\u001b\[31mred|log job acme\.job warn: two\\nlines .*\[31mred/);
    expect(human.stderr).to.not.contain('\u001b[31m');
    const json = cli('task', 'run', 'wf.yaml', '--db', ws.db, '--output', 'json');
    expect(`${json.stdout}${json.stderr}`).to.not.contain('starting the job');
  });

  it('human mode shows the declared code and its exit code', () => {
    const result = cli('preflight', 'run', 'wf.yaml', '--db', ws.db);
    expect(result.status).to.equal(6);
    expect(result.stderr).to.contain('ACME_PACK_E_QUOTA').and.to.contain('exit 6');
    expect(result.stderr).not.to.contain('    at ');
  });
});
