// Declarative packs in the reference format, end to end: manifests resolved below the workflow's folder, pinned by the
// SHA-256 of their bytes and by agentctl.pack.lock, their items compiled as PACK.ITEM, and every refusal named.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { parse, stringify } from 'yaml';
import { baseEnv, ROOT, runCli } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome, useWorkspace } from './helpers.js';

const manifest = (name: string, extra: Record<string, unknown> = {}) =>
  stringify({ apiVersion: 'agentctl.dev/pack/v1alpha1', name, version: '1.1.0', agentctl: '>=0.3.0, <1.0.0', actions: { assign: { kind: 'builtin.assign' } }, ...extra });

const workflowWith = (packs: unknown[], spec: Record<string, unknown> = {}) =>
  stringify({
    apiVersion: 'agentctl.dev/v1',
    kind: 'Workflow',
    metadata: { name: 'uses-packs' },
    spec: {
      packTrust: { unsigned: 'allow' },
      packs,
      outputs: { value: '${{ tasks.packed.output.output.value }}' },
      tasks: [{ id: 'packed', uses: 'action:acme.base.assign', with: { value: 'from-pack' } }],
      ...spec,
    },
  });

const sourced = (name: string, path: string, version = '^1.0') => ({ name, version, source: { path } });

describe('declarative packs', () => {
  const state = useWorkspace();
  const ws = () => state.ws;
  const cli = (args: string[]) => runCli([...args, '--output', 'json'], { env: baseEnv() });
  const refused = (args: string[], exitCode: number, code: string) => diagnosticWithCode(errorDocument(cli(args), exitCode), code);

  it('packs/devops-basics: its example workflow runs with --locked --offline, using a pack action and the pack sub-workflow', () => {
    const folder = join(ws().dir, 'devops-basics');
    cpSync(join(ROOT, 'packs', 'devops-basics'), folder, { recursive: true });
    const run = outcome(cli(['run', join(folder, 'example.workflow.yaml'), '--locked', '--offline', '--db', ws().db]), 0);
    expect(run.data.output.gate).to.deep.equal({ report: 'out/release-gate.txt', version: '2.4.0' });
    expect(readFileSync(join(folder, 'out', 'release-gate.txt'), 'utf8')).to.equal('release 2.4.0 passed the gate');
    expect(Object.keys(run.data.tasks)).to.include.members(['status', 'gate--require-ready', 'gate--record', 'gate--write', 'gate']);
    // The committed lock is exactly what `packs lock` writes today: deterministic, and not stale.
    const committed = readFileSync(join(folder, 'agentctl.pack.lock'), 'utf8');
    outcome(cli(['packs', 'lock', join(folder, 'example.workflow.yaml')]), 0);
    expect(readFileSync(join(folder, 'agentctl.pack.lock'), 'utf8')).to.equal(committed);
  });

  it('a dependency is resolved, locked and loaded: its items are reachable as PACK.ITEM; verify-lock lists both', () => {
    ws().write('base.pack.yaml', manifest('acme.base'));
    ws().write('root.pack.yaml', manifest('acme.root', { version: '2.0.0', dependencies: { 'acme.base': { version: '^1.0', source: { path: 'base.pack.yaml' } } } }));
    const file = ws().write('flow.yaml', workflowWith([sourced('acme.root', 'root.pack.yaml', '^2')]));
    const noLock = refused(['check', file], 2, 'AGENTCTL_E_PACK_LOCK_MISSING');
    expect(noLock.message).to.contain('pack acme.root names a source');
    const locked = outcome(cli(['packs', 'lock', file]), 0);
    expect(locked.data.written).to.deep.equal([{ path: ws().file('agentctl.pack.lock'), packs: 2, codePacks: 0 }]);
    expect(parse(readFileSync(ws().file('agentctl.pack.lock'), 'utf8')).packs.map((entry: any) => [entry.name, entry.version, entry.dependencies])).to.deep.equal([
      ['acme.base', '1.1.0', {}],
      ['acme.root', '2.0.0', { 'acme.base': '1.1.0' }],
    ]);
    const lock = readFileSync(ws().file('agentctl.pack.lock'), 'utf8');
    expect(lock).to.match(/^apiVersion: agentctl.dev\/pack-lock\/v1\nagentctl: 0.3.0\npacks:\n- name: acme.base\n/);
    expect(lock).to.contain("compatibility: '>=0.3.0, <1.0.0'");
    const verified = outcome(cli(['packs', 'verify-lock', file, '--offline']), 0);
    expect(verified.data).to.deep.include({ valid: true });
    expect(verified.data.packs).to.have.length(2);
    const run = outcome(cli(['run', file, '--locked', '--db', ws().db]), 0);
    expect(run.data.output).to.deep.equal({ value: 'from-pack' });
  });

  it('a changed byte, a new pack and an unreachable lock entry are drift: refused (exit 2) naming the pack, and nothing is written', () => {
    ws().write('base.pack.yaml', manifest('acme.base'));
    const file = ws().write('flow.yaml', workflowWith([sourced('acme.base', 'base.pack.yaml')]));
    outcome(cli(['packs', 'lock', file]), 0);
    const lock = readFileSync(ws().file('agentctl.pack.lock'), 'utf8');
    writeFileSync(ws().file('base.pack.yaml'), manifest('acme.base').replace('builtin.assign', 'builtin.assign '));
    const changed = refused(['run', file, '--db', ws().db], 2, 'AGENTCTL_E_PACK_LOCK_MISMATCH');
    expect(changed.message).to.match(/pack acme\.base changed: base\.pack\.yaml has the digest sha256:[0-9a-f]{64}, the lock pins sha256:/);
    expect(existsSync(ws().db)).to.equal(false);
    expect(readFileSync(ws().file('agentctl.pack.lock'), 'utf8')).to.equal(lock);
    writeFileSync(ws().file('base.pack.yaml'), manifest('acme.base'));
    ws().write('extra.pack.yaml', manifest('acme.extra'));
    writeFileSync(file, workflowWith([sourced('acme.base', 'base.pack.yaml'), sourced('acme.extra', 'extra.pack.yaml')]));
    expect(refused(['check', file, '--locked'], 2, 'AGENTCTL_E_PACK_LOCK_MISMATCH').message).to.contain('workflow pack acme.extra is missing from the lock');
    outcome(cli(['packs', 'lock', file]), 0);
    writeFileSync(file, workflowWith([sourced('acme.base', 'base.pack.yaml')]));
    expect(refused(['check', file], 2, 'AGENTCTL_E_PACK_LOCK_MISMATCH').message).to.contain('the lock holds packs the workflow does not reach: acme.extra');
  });

  it('--locked without a lock is refused; path + integrity references load without one, with a deprecation warning', () => {
    const text = manifest('acme.base');
    ws().write('base.pack.yaml', text);
    const digest = `sha256:${createHash('sha256').update(text).digest('hex')}`;
    const file = ws().write('flow.yaml', workflowWith([{ name: 'acme.base', version: '1.1.0', path: 'base.pack.yaml', integrity: digest }], { packTrust: { unsigned: 'warn' } }));
    const check = outcome(cli(['check', file]), 0);
    expect(check.data.tasks).to.equal(1);
    expect(check.diagnostics.map((item: any) => [item.code, item.severity])).to.deep.equal([
      ['AGENTCTL_E_PACK_LOCK_MISSING', 'warning'],
      ['AGENTCTL_E_PACK_UNTRUSTED', 'warning'],
    ]);
    expect(refused(['check', file, '--locked'], 2, 'AGENTCTL_E_PACK_LOCK_MISSING').message).to.contain('is required by --locked');
    writeFileSync(file, workflowWith([{ name: 'acme.base', version: '1.1.0', path: 'base.pack.yaml', integrity: `sha256:${'0'.repeat(64)}` }]));
    expect(refused(['check', file], 2, 'AGENTCTL_E_PACK_INTEGRITY').message).to.contain(`the workflow pins sha256:${'0'.repeat(64)}`);
  });

  it('resolution: a cycle, an unmet version, conflicting sources, a manifest of another name, an agentctl range that excludes this format', () => {
    const file = ws().file('flow.yaml');
    const lockOf = () => cli(['packs', 'lock', file]);
    ws().write('a.pack.yaml', manifest('acme.base', { dependencies: { 'acme.loop': { version: '^1', source: { path: 'b.pack.yaml' } } } }));
    ws().write('b.pack.yaml', manifest('acme.loop', { dependencies: { 'acme.base': { version: '^1', source: { path: 'a.pack.yaml' } } } }));
    writeFileSync(file, workflowWith([sourced('acme.base', 'a.pack.yaml')]));
    expect(diagnosticWithCode(errorDocument(lockOf(), 2), 'AGENTCTL_E_PACK_RESOLUTION').message).to.contain('cycle: acme.base → acme.loop → acme.base');
    ws().write('c.pack.yaml', manifest('acme.base'));
    writeFileSync(file, workflowWith([sourced('acme.base', 'c.pack.yaml', '^2')]));
    expect(diagnosticWithCode(errorDocument(lockOf(), 2), 'AGENTCTL_E_PACK_RESOLUTION').message).to.contain('version 1.1.0 does not satisfy "^2"');
    ws().write('d.pack.yaml', manifest('acme.other', { dependencies: { 'acme.base': { version: '^1', source: { path: 'copy.pack.yaml' } } } }));
    ws().write('copy.pack.yaml', manifest('acme.base'));
    writeFileSync(file, workflowWith([sourced('acme.base', 'c.pack.yaml'), sourced('acme.other', 'd.pack.yaml')]));
    expect(diagnosticWithCode(errorDocument(lockOf(), 2), 'AGENTCTL_E_PACK_RESOLUTION').message).to.contain('conflicting requirements for pack acme.base');
    writeFileSync(file, workflowWith([sourced('acme.wrong', 'c.pack.yaml')]));
    expect(diagnosticWithCode(errorDocument(lockOf(), 2), 'AGENTCTL_E_PACK_RESOLUTION').message).to.contain('pack requirement acme.wrong resolved to the manifest of acme.base');
    ws().write('old.pack.yaml', manifest('acme.base', { agentctl: '>=0.1.0, <0.3.0' }));
    writeFileSync(file, workflowWith([sourced('acme.base', 'old.pack.yaml')]));
    expect(diagnosticWithCode(errorDocument(lockOf(), 2), 'AGENTCTL_E_PACK_VERSION').message).to.contain('implements version 0.3.0 of the reference format');
  });

  it('manifests: an unknown field is named in the manifest; a path out of the folder, by .. or by symlink, is refused', () => {
    ws().write('bad.pack.yaml', manifest('acme.base', { colour: 'blue' }));
    const file = ws().write('flow.yaml', workflowWith([sourced('acme.base', 'bad.pack.yaml')]));
    const unknown = diagnosticWithCode(errorDocument(cli(['packs', 'lock', file]), 2), 'AGENTCTL_E_PACK_MANIFEST_INVALID');
    expect(unknown.file).to.equal(ws().file('bad.pack.yaml'));
    expect(unknown.message).to.contain('colour');
    writeFileSync(file, workflowWith([sourced('acme.base', '../outside.pack.yaml')]));
    expect(errorDocument(cli(['check', file]), 2).diagnostics[0].path).to.equal('spec.packs[0].source.path');
    const outside = join(ws().dir, '..', `outside-${process.pid}.pack.yaml`);
    writeFileSync(outside, manifest('acme.base'));
    symlinkSync(outside, ws().file('link.pack.yaml'));
    writeFileSync(file, workflowWith([sourced('acme.base', 'link.pack.yaml')]));
    expect(diagnosticWithCode(errorDocument(cli(['packs', 'lock', file]), 2), 'AGENTCTL_E_PACK_MANIFEST_MISSING').message).to.contain('resolves outside the workflow folder');
  });

  it('trust: unsigned: deny and an unreviewed process action are locked, then refused where the packs load (exit 2); git, archive and signatures are not supported yet (exit 2)', () => {
    ws().write('base.pack.yaml', manifest('acme.base'));
    const file = ws().write('flow.yaml', workflowWith([sourced('acme.base', 'base.pack.yaml')], { packTrust: { unsigned: 'deny' } }));
    outcome(cli(['packs', 'lock', file]), 0);
    expect(diagnosticWithCode(errorDocument(cli(['check', file]), 2), 'AGENTCTL_E_PACK_UNTRUSTED').message).to.contain('denied by spec.packTrust.unsigned');
    ws().write('proc.pack.yaml', manifest('acme.base', { actions: { assign: { kind: 'builtin.assign' }, sh: { kind: 'builtin.shell.exec', command: 'true' } } }));
    writeFileSync(file, workflowWith([sourced('acme.base', 'proc.pack.yaml')]));
    outcome(cli(['packs', 'lock', file]), 0);
    expect(diagnosticWithCode(errorDocument(cli(['check', file]), 2), 'AGENTCTL_E_PACK_UNTRUSTED').message).to.contain('declares process execution (action sh is builtin.shell.exec)');
    writeFileSync(file, workflowWith([{ name: 'acme.base', version: '^1', source: { git: 'https://example.com/p.git', rev: 'a'.repeat(40) } }]));
    expect(diagnosticWithCode(errorDocument(cli(['check', file]), 2), 'AGENTCTL_E_UNSUPPORTED').message).to.contain('git sources are not supported yet');
    writeFileSync(file, workflowWith([{ name: 'acme.base', version: '^1', source: { url: 'https://example.com/p.tgz', integrity: `sha256:${'1'.repeat(64)}` } }]));
    expect(diagnosticWithCode(errorDocument(cli(['check', file]), 2), 'AGENTCTL_E_UNSUPPORTED').message).to.contain('archive sources are not supported yet');
    writeFileSync(file, workflowWith([{ ...sourced('acme.base', 'base.pack.yaml'), signature: { bundle: 'b.sigstore', identity: 'me', issuer: 'them' } }]));
    expect(diagnosticWithCode(errorDocument(cli(['check', file]), 2), 'AGENTCTL_E_UNSUPPORTED').message).to.contain('Sigstore verification is not supported yet');
  });

  it("a workflow's own item named with a dot is refused: PACK.ITEM names belong to packs", () => {
    const file = ws().write('flow.yaml', stringify({ apiVersion: 'agentctl.dev/v1', kind: 'Workflow', metadata: { name: 'dots' }, spec: { actions: { 'acme.base.assign': { kind: 'builtin.assign' } }, tasks: [{ id: 'a', uses: 'action:acme.base.assign' }] } }));
    expect(errorDocument(cli(['check', file]), 2).diagnostics[0].message).to.contain('names with "." are reserved for pack items');
  });
});
