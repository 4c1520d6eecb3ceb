// The reference's examples/v1/a2a.yaml, copied verbatim into fixtures/reference/: it passes `check` unchanged and runs
// against a local A2A peer on 127.0.0.1:8766, the port it names. Unchanged, the run is refused in preflight: the
// example does not set `policy.network.allowPrivate`, and the reference's network policy (docs/guides/NETWORK_POLICY.md)
// denies loopback without it. With that one line added it runs to `succeeded`, the peer's task its output.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { baseEnv, ROOT, runCliAsync, workspace } from '../support/cli.js';
import { startA2aServer, type A2aTestServer } from '../support/a2a-server.js';
import { diagnosticWithCode, errorDocument, outcome } from '../cases/helpers.js';
import { expectAt } from './journey-support.js';

const EXAMPLE = join(ROOT, 'test', 'compat', 'fixtures', 'reference', 'a2a.yaml');
const JSON_OUT = ['--output', 'json', '--color', 'never'];

describe('reference example: examples/v1/a2a.yaml against a local peer on 127.0.0.1:8766', function () {
  this.timeout(60_000);
  let ws: ReturnType<typeof workspace>;
  let server: A2aTestServer | undefined;
  beforeEach(async function () {
    ws = workspace();
    copyFileSync(EXAMPLE, ws.file('a2a.yaml'));
    try {
      server = await startA2aServer({ port: 8766 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') this.skip();
      throw error;
    }
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    ws.cleanup();
  });
  const cli = (...args: string[]) => runCliAsync(args, { cwd: ws.dir, env: baseEnv() });

  it('check passes unchanged; run unchanged is refused at preflight (loopback without allowPrivate); with it, succeeded', async () => {
    expectAt(outcome(await cli('check', 'a2a.yaml', ...JSON_OUT), 0), { '/kind': 'CheckResult', '/data/valid': true, '/data/workflow': 'a2a-delegation', '/data/tasks': 1 });

    const refused = errorDocument(await cli('run', 'a2a.yaml', '--db', '.agentctl/runtime.db', ...JSON_OUT), 3);
    expect(diagnosticWithCode(refused, 'AGENTCTL_E_NETWORK_DENIED').path).to.equal('spec.a2aPeers.local.cardUrl');
    expect(server!.requests).to.deep.equal([]);

    writeFileSync(ws.file('a2a.yaml'), readFileSync(EXAMPLE, 'utf8').replace('    approval: never\n', '    approval: never\n    network:\n      allowPrivate: true\n'));
    const run = outcome(await cli('run', 'a2a.yaml', '--db', '.agentctl/runtime.db', ...JSON_OUT), 0);
    expectAt(run, { '/kind': 'RunOutcome', '/data/state': 'succeeded', '/data/tasks': { delegate: 'succeeded' } });
    expect(server!.methods().filter((method) => method === 'SendMessage')).to.have.length(1);
    const inspection = outcome(await cli('inspect', run.data.runId, '--db', '.agentctl/runtime.db', ...JSON_OUT), 0);
    expectAt(inspection, { '/data/tasks/0/output/status/state': 'TASK_STATE_COMPLETED', '/data/protocolCalls/0/callIdentity': 'example-message-1', '/data/protocolCalls/0/remoteId': 'task-1' });
  });
});
