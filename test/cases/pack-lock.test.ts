// Code packs pinned by agentctl.pack.lock, and `packs vendor`: the folder CI runs with --locked --offline, with no
// install of any pack. A changed byte is refused before the pack's code is imported.
import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { ROOT, runCli, workspace } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome } from './helpers.js';
import { ECHO_WORKFLOW, packProject, writeConfig, type Project } from './pack-project.js';

describe('code packs in the lock, and packs vendor', () => {
  const cleanups: Project[] = [];
  afterEach(() => cleanups.splice(0).forEach((project) => project.cleanup()));
  const project = (packs: string[] = ['echo']) => {
    const created = packProject(packs);
    cleanups.push(created);
    return created;
  };
  const cli = (where: Project, args: string[]) => runCli([...args, '--output', 'json'], { cwd: where.dir });

  it('packs lock pins each code pack; a changed byte is refused before the pack is imported, and so is a pack added without relocking', () => {
    const p = project();
    writeConfig(p, { packs: [{ path: './packs/echo', options: { prefix: 'hi' } }] });
    p.write('wf.yaml', ECHO_WORKFLOW);
    expect(diagnosticWithCode(errorDocument(cli(p, ['run', 'wf.yaml', '--locked', '--db', p.db]), 2), 'AGENTCTL_E_PACK_LOCK_MISSING').message).to.contain('is required by --locked');
    const locked = outcome(cli(p, ['packs', 'lock']), 0);
    expect(locked.data.written).to.deep.equal([{ path: p.file('agentctl.pack.lock'), packs: 0, codePacks: 1 }]);
    const lock = parse(readFileSync(p.file('agentctl.pack.lock'), 'utf8'));
    expect(lock.codePacks).to.have.length(1);
    expect(lock.codePacks[0]).to.deep.include({ name: 'agentctl-pack-echo', version: '1.2.3', hostRange: '^0.1.0', source: { path: 'packs/echo' } });
    expect(lock.codePacks[0].integrity).to.match(/^sha256:[0-9a-f]{64}$/);
    expect(outcome(cli(p, ['run', 'wf.yaml', '--locked', '--offline', '--db', p.db]), 0).data.output).to.deep.equal({ said: 'hi world' });

    // A line that throws when imported: the lock refuses the file first, so the throw never happens.
    appendFileSync(p.file('packs/echo/plugin.mjs'), '\nthrow new Error("tampered code ran");\n');
    const changed = diagnosticWithCode(errorDocument(cli(p, ['run', 'wf.yaml', '--db', join(p.dir, 'other.db')]), 2), 'AGENTCTL_E_PACK_LOCK_MISMATCH');
    expect(changed.message).to.match(/code pack agentctl-pack-echo changed: plugin.mjs changed; its files have the digest sha256:[0-9a-f]{64}, the lock pins sha256:/);
    expect(changed.message).to.not.contain('tampered code ran');
    expect(existsSync(join(p.dir, 'other.db'))).to.equal(false);
  });

  it('a pack listed in the config but not in the lock, and a lock entry the config dropped, are drift', () => {
    const p = project(['echo', 'wrong-range']);
    writeConfig(p, { packs: ['./packs/echo'] });
    p.write('wf.yaml', ECHO_WORKFLOW);
    outcome(cli(p, ['packs', 'lock']), 0);
    mkdirSync(p.file('more'));
    cpSync(p.file('packs/echo'), p.file('more/echo-copy'), { recursive: true });
    writeConfig(p, { packs: ['./packs/echo', './more/echo-copy'] });
    expect(diagnosticWithCode(errorDocument(cli(p, ['check', 'wf.yaml', '--locked']), 2), 'AGENTCTL_E_PACK_LOCK_MISMATCH').message).to.contain('code pack ./more/echo-copy (packs[1] of');
    writeConfig(p, { packs: [] });
    expect(diagnosticWithCode(errorDocument(cli(p, ['check', 'wf.yaml', '--locked']), 2), 'AGENTCTL_E_PACK_LOCK_MISMATCH').message).to.contain('the lock lists code packs the config does not: agentctl-pack-echo');
  });

  it('packs vendor: the folder, copied where no pack is installed, runs with --locked --offline; one flipped byte of a bundle is refused', () => {
    const p = project();
    writeConfig(p, { packs: [{ path: './packs/echo', options: { prefix: 'vendored' } }] });
    p.write('wf.yaml', ECHO_WORKFLOW);
    // A declarative pack goes along with the workflow that uses it.
    cpSync(join(ROOT, 'packs', 'devops-basics'), p.file('basics'), { recursive: true });
    const vendored = outcome(cli(p, ['packs', 'vendor', '--out', 'vendor', 'wf.yaml', 'basics/example.workflow.yaml']), 0);
    expect(vendored.data.codePacks.map((pack: any) => [pack.name, pack.file])).to.deep.equal([['agentctl-pack-echo', 'packs/agentctl-pack-echo.mjs']]);
    expect(vendored.data.declarativePacks).to.deep.equal(['devops.basics']);
    const lock = parse(readFileSync(p.file('vendor/agentctl.pack.lock'), 'utf8'));
    expect(lock.packs.map((entry: any) => entry.name)).to.deep.equal(['devops.basics']);
    expect(lock.codePacks.map((entry: any) => entry.source)).to.deep.equal([{ path: 'packs/agentctl-pack-echo.mjs' }]);

    // A clean CI checkout: agentctl is installed, nothing else; the vendored folder is all there is of the packs.
    const clean = workspace();
    cleanups.push(clean as Project);
    mkdirSync(clean.file('node_modules/@agentctl'), { recursive: true });
    symlinkSync(ROOT, clean.file('node_modules/@agentctl/cli'));
    cpSync(p.file('vendor'), clean.file('ci'), { recursive: true });
    cpSync(p.file('basics/release'), clean.file('ci/release'), { recursive: true });
    const run = outcome(runCli(['run', 'ci/wf.yaml', '--locked', '--offline', '--db', clean.db, '--output', 'json'], { cwd: clean.dir }), 0);
    expect(run.data.output).to.deep.equal({ said: 'vendored world' });
    const basics = outcome(runCli(['run', 'ci/example.workflow.yaml', '--locked', '--offline', '--db', clean.db, '--output', 'json'], { cwd: clean.dir }), 0);
    expect(basics.data.output.gate).to.deep.equal({ report: 'out/release-gate.txt', version: '2.4.0' });

    const bundle = clean.file('ci/packs/agentctl-pack-echo.mjs');
    const bytes = readFileSync(bundle);
    bytes[bytes.length - 2] = bytes[bytes.length - 2]! ^ 1;
    writeFileSync(bundle, bytes);
    expect(diagnosticWithCode(errorDocument(runCli(['run', 'ci/wf.yaml', '--locked', '--offline', '--db', clean.db, '--output', 'json'], { cwd: clean.dir }), 2), 'AGENTCTL_E_PACK_LOCK_MISMATCH').message).to.contain('code pack agentctl-pack-echo changed');
    expect(realpathSync(clean.dir)).to.not.equal('');
  });
});
