// @agentctl/sdk/process, the Node helper extension authors import: spawned as an extension would be, from the built
// package (the script imports it by the package name).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { ROOT } from '../support/cli.js';

const SCRIPT = join(ROOT, 'test', 'fixtures', 'helper-extension.mjs');
const PROTOCOL = 'agentctl.dev/process-extension/v1';

const launch = (mode: string, stdin = '') => spawnSync(process.execPath, [SCRIPT, 'first', mode], { input: stdin, encoding: 'utf8', env: {} });

describe('@agentctl/sdk/process (serveExtension)', () => {
  it('answers --agentctl-handshake with one JSON line: protocolVersion, name, schemas and capabilities', () => {
    const result = launch('--agentctl-handshake');
    expect(result.status).to.equal(0);
    expect(result.stderr).to.equal('');
    expect(result.stdout.endsWith('\n')).to.equal(true);
    expect(JSON.parse(result.stdout)).to.deep.equal({ protocolVersion: PROTOCOL, name: 'helper-fixture', inputSchema: { type: 'object' }, outputSchema: { type: 'object' }, capabilities: ['echo'] });
  });

  it('answers --agentctl-invoke: reads the request on stdin, calls invoke with the input and effect id, echoes the effect id', () => {
    const request = { protocolVersion: PROTOCOL, effectId: 'eff_1', input: { a: [1, 'two'] } };
    const result = launch('--agentctl-invoke', JSON.stringify(request));
    expect(result.status).to.equal(0);
    expect(JSON.parse(result.stdout)).to.deep.equal({ protocolVersion: PROTOCOL, effectId: 'eff_1', output: { input: { a: [1, 'two'] }, effectId: 'eff_1' } });
  });

  for (const [name, mode, stdin, status, message] of [
    ['no mode argument', 'serve', '', 2, 'helper-fixture: an agentctl process extension; run it with --agentctl-handshake or --agentctl-invoke'],
    ['a request that is not JSON', '--agentctl-invoke', '{"protocolVersion"', 1, 'helper-fixture: the request on stdin is not JSON'],
    ['another protocol version', '--agentctl-invoke', JSON.stringify({ protocolVersion: 'v0', effectId: 'e', input: {} }), 1, 'helper-fixture: the request speaks "v0", not agentctl.dev/process-extension/v1'],
    ['no effect id', '--agentctl-invoke', JSON.stringify({ protocolVersion: PROTOCOL, input: {} }), 1, 'helper-fixture: the request has no effectId'],
    ['invoke throws', '--agentctl-invoke', JSON.stringify({ protocolVersion: PROTOCOL, effectId: 'e', input: { fail: 'now' } }), 1, 'helper-fixture: asked to fail: now'],
  ] as const) {
    it(`${name}: exit ${status}, a message on stderr, nothing on stdout`, () => {
      const result = launch(mode, stdin);
      expect(result.status).to.equal(status);
      expect(result.stdout).to.equal('');
      expect(result.stderr).to.contain(message);
    });
  }

  it('imports nothing, so a copy of the compiled file runs on its own', () => {
    const compiled = readFileSync(join(ROOT, 'sdk', 'dist', 'process.js'), 'utf8');
    expect(compiled).not.to.match(/^\s*import\s/m);
    expect(compiled).not.to.match(/\brequire\(/);
  });
});
