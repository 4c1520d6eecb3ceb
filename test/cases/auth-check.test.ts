// `agentctl auth check`: every secret reference of a workflow and whether it is present, with nothing read or run.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { expect } from 'chai';
import { stringify } from 'yaml';
import { baseEnv, runCli, workspace } from '../support/cli.js';
import { outcome } from './helpers.js';

type Workspace = ReturnType<typeof workspace>;

describe('agentctl auth check', function () {
  this.timeout(60_000);
  let ws: Workspace;
  beforeEach(() => {
    ws = workspace();
    mkdirSync(ws.file('secrets'));
  });
  afterEach(() => ws.cleanup());

  const helper = (name: string) => {
    const path = ws.write(`bin/${name}`, `#!/bin/sh\n: > "${ws.file('helper-ran')}"\necho helper-value\n`);
    chmodSync(path, 0o755);
    return path;
  };

  /** A workflow with one reference of each form in an action's env, a provider, its header, a tool and customCa. */
  const document = (env: Record<string, unknown>, extra: { policy?: Record<string, unknown> } = {}) =>
    stringify({
      apiVersion: 'agentctl.dev/v1',
      kind: 'Workflow',
      metadata: { name: 'auth' },
      spec: {
        providers: { openai: { kind: 'openai', endpoint: 'https://api.openai.com/v1/responses', headers: { 'x-team': { file: 'secrets/team' } } } },
        policy: {
          processAllowlist: ['sh'],
          environmentAllowlist: Object.keys(env),
          secretFileRoots: ['secrets'],
          secretProcessAllowlist: ['get-token'],
          networkAllowlist: ['api.openai.com'],
          network: { customCa: { file: 'secrets/ca.pem' } },
          approval: 'never',
          ...extra.policy,
        },
        actions: { cmd: { kind: 'builtin.shell.exec', command: 'sh', args: ['-c', 'true'], env } },
        agents: { analyst: { provider: 'openai', model: 'gpt-5-mini', instructions: 'Be brief.' } },
        tasks: [{ id: 'cmd', uses: 'action:cmd' }],
      },
    });

  const check = (text: string, env: NodeJS.ProcessEnv = {}, output = 'json') => runCli(['auth', 'check', ws.write('wf.yaml', text), '--output', output], { env: baseEnv(env), timeoutMs: 30_000 });

  it('lists every reference with its form, text and where it is used; exit 0 when all are present; no helper runs', () => {
    ws.write('secrets/team', 'team-value\n');
    ws.write('secrets/ca.pem', 'not read\n');
    const result = check(document({ A: { env: 'DEPLOY_TOKEN' }, B: { file: 'secrets/team' }, C: { process: { command: helper('get-token'), args: ['x'] } } }), { DEPLOY_TOKEN: 'deploy-value', OPENAI_API_KEY: 'key-value' });
    const report = outcome(result, 0);
    expect(report.kind).to.equal('AuthStatus');
    expect(report.ok).to.equal(true);
    // The reference's entry per provider comes first: its credential's kind, reference and availability.
    expect(report.data[0]).to.deep.include({ provider: 'openai', credential: { kind: 'environment', reference: 'OPENAI_API_KEY', availability: 'present' } });
    expect(report.data.map((item: any) => item.provider)).to.deep.equal(['openai', null, null, null, null, null]);
    expect(report.data.map((item: any) => [item.where, item.form, item.text, item.present])).to.deep.equal([
      ['spec.providers.openai.credential', 'env', '{env: OPENAI_API_KEY}', true],
      ['spec.actions.cmd', 'env', '{env: DEPLOY_TOKEN}', true],
      ['spec.actions.cmd', 'file', '{file: secrets/team}', true],
      ['spec.actions.cmd', 'process', `{process: {command: ${ws.file('bin/get-token')}, args: [x]}}`, true],
      ['spec.providers.openai.headers.x-team', 'file', '{file: secrets/team}', true],
      ['spec.policy.network.customCa', 'file', '{file: secrets/ca.pem}', true],
    ]);
    expect(existsSync(ws.file('helper-ran')), 'the helper ran').to.equal(false);
    expect(result.stdout).to.not.contain('deploy-value').and.not.contain('team-value').and.not.contain('key-value');
  });

  it('reports each absent reference with its code; exit 6; a FIFO does not block and a helper is never run', () => {
    execFileSync('mkfifo', [ws.file('secrets/team')]);
    ws.write('other/ca.pem', 'x');
    const text = document({ A: { env: 'DEPLOY_TOKEN' }, B: { file: 'secrets/missing' }, C: { process: { command: helper('not-listed') } } }, { policy: { network: { customCa: { file: 'other/ca.pem' } } } });
    const started = Date.now();
    const report = outcome(check(text), 6);
    expect(Date.now() - started).to.be.below(20_000);
    expect(report.ok).to.equal(true);
    expect(report.data.map((item: any) => [item.where, item.present, item.code])).to.deep.equal([
      ['spec.providers.openai.credential', false, 'AGENTCTL_E_SECRET_MISSING'],
      ['spec.actions.cmd', false, 'AGENTCTL_E_SECRET_MISSING'],
      ['spec.actions.cmd', false, 'AGENTCTL_E_SECRET_MISSING'],
      ['spec.actions.cmd', false, 'AGENTCTL_E_SECRET_PROCESS_NOT_ALLOWED'],
      ['spec.providers.openai.headers.x-team', false, 'AGENTCTL_E_SECRET_FILE_NOT_REGULAR'],
      ['spec.policy.network.customCa', false, 'AGENTCTL_E_SECRET_FILE_OUTSIDE_ROOTS'],
    ]);
    expect(report.diagnostics.map((item: any) => item.code)).to.have.length(6);
    expect(report.data.map((item: any) => item.credential.availability)).to.deep.equal(['missing', 'missing', 'missing', 'missing_or_denied', 'missing_or_denied', 'missing_or_denied']);
    expect(existsSync(ws.file('helper-ran')), 'the helper ran').to.equal(false);
  });

  it('a file is stat-ed, never read: a file that is not UTF-8 counts as present; one over 64 KiB does not', () => {
    ws.write('secrets/team', Buffer.from([0xff, 0xfe, 0x00, 0x41]).toString('latin1'));
    ws.write('secrets/ca.pem', 'a'.repeat(65537));
    const report = outcome(check(document({}), { OPENAI_API_KEY: 'key-value' }), 6);
    expect(report.data.map((item: any) => [item.where, item.code])).to.deep.equal([
      ['spec.providers.openai.credential', null],
      ['spec.providers.openai.headers.x-team', null],
      ['spec.policy.network.customCa', 'AGENTCTL_E_SECRET_FILE_TOO_LARGE'],
    ]);
  });

  it('prints a table in human output', () => {
    ws.write('secrets/team', 'team-value\n');
    ws.write('secrets/ca.pem', 'x\n');
    const result = check(document({ A: { env: 'DEPLOY_TOKEN' } }), { OPENAI_API_KEY: 'key-value' }, 'human');
    expect(result.status).to.equal(6);
    expect(result.stdout.split('\n')).to.deep.equal([
      'WHERE                                 FORM  REFERENCE               PRESENT',
      'spec.actions.cmd                      env   {env: DEPLOY_TOKEN}     no: AGENTCTL_E_SECRET_MISSING environment variable DEPLOY_TOKEN is not set',
      'spec.providers.openai.credential      env   {env: OPENAI_API_KEY}   yes',
      'spec.providers.openai.headers.x-team  file  {file: secrets/team}    yes',
      'spec.policy.network.customCa          file  {file: secrets/ca.pem}  yes',
      '1 of 4 not present',
      '',
    ]);
  });
});
