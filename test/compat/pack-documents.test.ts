// The packs commands as the reference's scripts read them: `packs inspect|verify|lock|update|verify-lock` print the
// reference's `data` shapes (agentctl's extra fields beside them), a pack that declares process execution is locked and
// then refused where it loads, and a pack item's variable files are relative to its manifest.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { expect } from 'chai';
import { parse, stringify } from 'yaml';
import { baseEnv, runCli } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome, useWorkspace } from '../cases/helpers.js';

const manifest = (name: string, extra: Record<string, unknown> = {}) =>
  stringify({ apiVersion: 'agentctl.dev/pack/v1alpha1', name, version: '1.2.0', agentctl: '>=0.3.0, <1.0.0', actions: { assign: { kind: 'builtin.assign' } }, ...extra });

const workflowWith = (packs: unknown[], spec: Record<string, unknown> = {}) =>
  stringify({
    apiVersion: 'agentctl.dev/v1',
    kind: 'Workflow',
    metadata: { name: 'uses-packs' },
    spec: { packTrust: { unsigned: 'allow' }, packs, outputs: { value: '${{ tasks.packed.output.output.value }}' }, tasks: [{ id: 'packed', uses: 'action:acme.base.assign', with: { value: 'from-pack' } }], ...spec },
  });

const sourced = (name: string, path: string, version = '^1.0') => ({ name, version, source: { path } });
const sha256 = (text: string) => createHash('sha256').update(text).digest();

describe('compat: pack documents', () => {
  const state = useWorkspace();
  const ws = () => state.ws;
  const cli = (args: string[]) => runCli([...args, '--output', 'json'], { env: baseEnv() });

  it('packs inspect prints the manifest itself (PackInspection), policyDefaults null when absent, plus path, integrity and referenceFormatVersion', () => {
    const text = manifest('acme.base', { capabilities: ['internal'], dependencies: { 'acme.dep': { version: '^1', source: { path: 'dep.pack.yaml' } } } });
    const file = ws().write('base.pack.yaml', text);
    const { data } = outcome(cli(['packs', 'inspect', file]), 0);
    expect(data).to.deep.include({ apiVersion: 'agentctl.dev/pack/v1alpha1', name: 'acme.base', version: '1.2.0', agentctl: '>=0.3.0, <1.0.0', capabilities: ['internal'], providers: [], policyDefaults: null, agents: {}, tools: {}, workflows: {} });
    expect(data.actions).to.deep.equal({ assign: { kind: 'builtin.assign' } });
    expect(data.dependencies).to.deep.equal({ 'acme.dep': { version: '^1', source: { path: 'dep.pack.yaml' } } });
    expect(data).to.deep.include({ path: file, integrity: `sha256:${sha256(text).toString('hex')}`, referenceFormatVersion: '0.3.0' });
    expect(data).to.not.have.property('manifest');
  });

  it('packs verify MANIFEST --integrity: sha256:HEX (the reference form) and sha256-BASE64 (SRI) verify; a mismatch is exit 2 naming both digests', () => {
    const text = manifest('acme.base');
    const file = ws().write('base.pack.yaml', text);
    const hex = `sha256:${sha256(text).toString('hex')}`;
    for (const given of [hex, hex.toUpperCase().replace('SHA256', 'sha256'), `sha256-${sha256(text).toString('base64')}`]) {
      expect(outcome(cli(['packs', 'verify', file, '--integrity', given]), 0).data, given).to.deep.equal({ path: file, integrity: hex, valid: true });
    }
    const wrong = `sha256:${'0'.repeat(64)}`;
    const refused = diagnosticWithCode(errorDocument(cli(['packs', 'verify', file, '--integrity', wrong]), 2), 'AGENTCTL_E_PACK_INTEGRITY');
    expect(refused.message).to.equal(`pack integrity mismatch for ${file}: expected ${wrong}, got ${hex}`);
  });

  it('packs lock prints {path, lock} and packs update {path, updated, lock}, lock being the file written', () => {
    ws().write('base.pack.yaml', manifest('acme.base'));
    const file = ws().write('flow.yaml', workflowWith([sourced('acme.base', 'base.pack.yaml')]));
    const lockPath = ws().file('agentctl.pack.lock');
    const locked = outcome(cli(['packs', 'lock', file]), 0).data;
    expect(locked.path).to.equal(lockPath);
    expect(locked.lock).to.deep.equal(parse(readFileSync(lockPath, 'utf8')));
    expect(locked.lock).to.deep.include({ apiVersion: 'agentctl.dev/pack-lock/v1', agentctl: '0.3.0' });
    expect(locked.lock.packs).to.deep.equal([
      { name: 'acme.base', version: '1.2.0', source: { path: 'base.pack.yaml' }, integrity: `sha256:${sha256(manifest('acme.base')).toString('hex')}`, compatibility: '>=0.3.0, <1.0.0', dependencies: {}, trust: { status: 'unsigned' } },
    ]);
    expect(locked.written).to.deep.equal([{ path: lockPath, packs: 1, codePacks: 0 }]);
    const named = outcome(cli(['packs', 'update', file, '--pack', 'acme.base']), 0).data;
    expect(named).to.deep.include({ path: lockPath, updated: 'acme.base' });
    expect(named.lock).to.deep.equal(locked.lock);
    expect(outcome(cli(['packs', 'update', file]), 0).data.updated).to.equal(null);
  });

  it('packs verify-lock prints {path, valid, packs, warnings}: an unsigned pack under unsigned: warn is a warning message', () => {
    ws().write('base.pack.yaml', manifest('acme.base'));
    const file = ws().write('flow.yaml', workflowWith([sourced('acme.base', 'base.pack.yaml')], { packTrust: { unsigned: 'warn' } }));
    const lock = outcome(cli(['packs', 'lock', file]), 0).data.lock;
    const verified = outcome(cli(['packs', 'verify-lock', file]), 0);
    expect(verified.data).to.deep.equal({ path: ws().file('agentctl.pack.lock'), valid: true, packs: lock.packs, warnings: ['pack acme.base is unsigned'], codeLock: null, codePacks: [] });
    expect(verified.diagnostics.map((item: any) => [item.code, item.severity])).to.deep.equal([['AGENTCTL_E_PACK_UNTRUSTED', 'warning']]);
  });

  it('a pack that declares process execution is locked; run and verify-lock refuse it (exit 2) before any database until allowUnsignedProcess: true', () => {
    const marker = ws().file('ran.txt');
    ws().write('proc.pack.yaml', manifest('acme.base', { actions: { assign: { kind: 'builtin.assign' }, touch: { kind: 'builtin.shell.exec', command: 'touch', args: [marker] } } }));
    const spec = (allowUnsignedProcess: boolean) => ({
      packTrust: { unsigned: 'warn', allowUnsignedProcess },
      policy: { processAllowlist: ['touch'], writableRoots: ['.'], approval: 'never' },
      outputs: {},
      tasks: [{ id: 'touch', uses: 'action:acme.base.touch' }],
    });
    const file = ws().write('flow.yaml', workflowWith([sourced('acme.base', 'proc.pack.yaml')], spec(false)));
    expect(outcome(cli(['packs', 'lock', file]), 0).data.lock.packs.map((entry: any) => entry.name)).to.deep.equal(['acme.base']);
    const run = errorDocument(cli(['run', file, '--locked', '--offline', '--db', ws().db]), 2);
    expect(run.error.message).to.contain('declares process execution');
    expect(diagnosticWithCode(run, 'AGENTCTL_E_PACK_UNTRUSTED').message).to.equal('unsigned pack acme.base declares process execution (action touch is builtin.shell.exec)');
    expect(existsSync(ws().db)).to.equal(false);
    expect(existsSync(marker)).to.equal(false);
    diagnosticWithCode(errorDocument(cli(['packs', 'verify-lock', file]), 2), 'AGENTCTL_E_PACK_UNTRUSTED');
    writeFileSync(file, workflowWith([sourced('acme.base', 'proc.pack.yaml')], spec(true)));
    expect(outcome(cli(['run', file, '--locked', '--offline', '--db', ws().db]), 0).data.state).to.equal('succeeded');
    expect(existsSync(marker)).to.equal(true);
  });

  it("a pack sub-workflow task's varsFiles are relative to the pack manifest's folder; a .. in one is refused", () => {
    const task = (varsFiles: string[]) => ({ id: 'say', uses: 'action:assign', varsFiles, vars: { extra: 'inline' }, with: { who: '${{ vars.who }}', extra: '${{ vars.extra }}' } });
    const pack = (varsFiles: string[]) =>
      manifest('acme.base', { workflows: { greet: { version: '1.0.0', inputSchema: { type: 'object' }, outputSchema: { type: 'object' }, tasks: [task(varsFiles)], outputs: { who: '${{ tasks.say.output.output.who }}', extra: '${{ tasks.say.output.output.extra }}' } } } });
    ws().write('packs/acme/agentctl.pack.yaml', pack(['vars/defaults.yaml']));
    ws().write('packs/acme/vars/defaults.yaml', 'who: the pack file\nextra: from-file\n');
    ws().write('vars/defaults.yaml', 'who: the workflow folder\n');
    const spec = { outputs: { greeting: '${{ tasks.g.output }}' }, tasks: [{ id: 'g', uses: 'workflow:acme.base.greet' }] };
    const file = ws().write('flow.yaml', workflowWith([sourced('acme.base', 'packs/acme/agentctl.pack.yaml')], spec));
    outcome(cli(['packs', 'lock', file]), 0);
    expect(outcome(cli(['run', file, '--db', ws().db]), 0).data.output).to.deep.equal({ greeting: { who: 'the pack file', extra: 'inline' } });
    ws().write('packs/acme/agentctl.pack.yaml', pack(['../../vars/defaults.yaml']));
    outcome(cli(['packs', 'lock', file]), 0);
    expect(diagnosticWithCode(errorDocument(cli(['check', file]), 2), 'AGENTCTL_E_VARS_FILE_PATH').message).to.contain('contains a ".." segment');
  });

  it("a pack agent's varsFiles are relative to the pack manifest's folder too", () => {
    const agents = { helper: { provider: 'fake', model: 'scripted', instructions: 'Answer.', varsFiles: ['tone.yaml'] } };
    ws().write('packs/acme/agentctl.pack.yaml', manifest('acme.base', { agents }));
    ws().write('packs/acme/tone.yaml', 'tone: softly\n');
    const spec = { providers: { fake: { kind: 'fake' } }, policy: { approval: 'never' }, outputs: {}, tasks: [{ id: 'ask', uses: 'agent:acme.base.helper', with: { prompt: '${{ vars.tone }}' } }] };
    const file = ws().write('flow.yaml', workflowWith([sourced('acme.base', 'packs/acme/agentctl.pack.yaml')], spec));
    outcome(cli(['packs', 'lock', file]), 0);
    expect(outcome(cli(['check', file]), 0).data.tasks).to.equal(1);
    writeFileSync(ws().file('packs/acme/tone.yaml'), '');
    ws().write('tone.yaml', 'tone: from the workflow folder\n');
    const refused = diagnosticWithCode(errorDocument(cli(['check', file]), 2), 'AGENTCTL_E_VARS_FILE_INVALID');
    expect(refused.message).to.contain('"packs/acme/tone.yaml"');
  });

  it('schema --kind gives each pack, plugin and config document its fields; plugins list, plugins order and config show match them', () => {
    const required = (kind: string) => outcome(cli(['schema', '--kind', kind]), 0).data.properties.data.required;
    expect(required('PackInspection')).to.include.members(['apiVersion', 'name', 'version', 'agentctl', 'dependencies', 'actions', 'agents', 'tools', 'workflows', 'capabilities', 'providers', 'policyDefaults']);
    expect(required('PackVerification')).to.deep.equal(['path', 'integrity', 'valid']);
    expect(required('PackLock')).to.include.members(['path', 'lock']);
    expect(required('PackLockUpdate')).to.include.members(['path', 'lock', 'updated']);
    expect(required('PackLockVerification')).to.include.members(['path', 'valid', 'packs', 'warnings']);
    expect(required('PackVendor')).to.include.members(['out', 'config', 'lock', 'codePacks', 'declarativePacks', 'workflows']);
    expect(required('PluginList')).to.deep.equal(['plugins']);
    expect(required('HookOrder')).to.deep.equal(['hook', 'taps']);
    expect(required('ConfigShow')).to.deep.equal(['file', 'searchedFrom', 'settings']);
    // Read through the harness, each document is validated against its schema.
    const plugins = outcome(runCli(['plugins', 'list', '--output', 'json', '--no-config'], { cwd: ws().dir }), 0).data.plugins;
    expect(plugins.find((plugin: any) => plugin.name === 'builtin.assign')).to.deep.include({ source: 'builtin', actionKinds: ['builtin.assign'], network: false, taps: [] });
    const order = outcome(runCli(['plugins', 'order', '--hook', 'dispatch:builtin.assign', '--output', 'json', '--no-config'], { cwd: ws().dir }), 0).data;
    expect(order).to.deep.equal({ hook: 'dispatch:builtin.assign', taps: [{ hook: 'dispatch:builtin.assign', plugin: 'builtin.assign', name: 'builtin.assign', stage: '0' }] });
    const shown = outcome(runCli(['config', 'show', '--output', 'json'], { cwd: ws().dir }), 0).data;
    expect(shown.settings.output).to.deep.equal({ value: 'json', source: 'flag' });
  });
});
