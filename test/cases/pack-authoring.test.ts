// Pack authoring and locking as a new author meets them: what `packs verify-lock` says it checked, what `packs vendor`
// prints and refuses, and how a command line missing an argument is answered.
import { existsSync, mkdirSync } from 'node:fs';
import { expect } from 'chai';
import { runCli } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome } from './helpers.js';
import { ECHO_WORKFLOW, packProject, writeConfig, type Project } from './pack-project.js';

describe('pack authoring and locking, as a new author meets them', () => {
  const cleanups: Project[] = [];
  afterEach(() => cleanups.splice(0).forEach((project) => project.cleanup()));
  const project = (packs: string[] = []) => {
    const created = packProject(packs);
    cleanups.push(created);
    return created;
  };

  it('packs verify-lock counts the code packs it checks, checks them as --locked does, and refuses a changed one', () => {
    const p = project(['echo']);
    mkdirSync(p.file('more'));
    p.write('more/other/index.mjs', "import { definePlugin } from '@agentctl/sdk';\nexport default definePlugin({ name: 'agentctl-pack-other', version: '2.0.0', hostRange: '^0.1.0', setup() {} });\n");
    p.write('more/other/package.json', JSON.stringify({ name: 'agentctl-pack-other', type: 'module', exports: './index.mjs' }));
    writeConfig(p, { packs: ['./packs/echo', './more/other'] });
    p.write('wf.yaml', ECHO_WORKFLOW);
    expect(diagnosticWithCode(errorDocument(runCli(['packs', 'verify-lock', 'wf.yaml', '--output', 'json'], { cwd: p.dir }), 2), 'AGENTCTL_E_PACK_LOCK_MISSING').message).to.contain('is required by --locked');
    outcome(runCli(['packs', 'lock', '--output', 'json'], { cwd: p.dir }), 0);

    const human = runCli(['packs', 'verify-lock', 'wf.yaml'], { cwd: p.dir });
    expect(human.status, human.stderr).to.equal(0);
    expect(human.stdout).to.equal('verified 2 locked pack(s): 0 declarative, 2 code\n');
    const document = outcome(runCli(['packs', 'verify-lock', '--output', 'json'], { cwd: p.dir }), 0);
    expect(document.data).to.deep.include({ valid: true, packs: [], codeLock: p.file('agentctl.pack.lock') });
    expect(document.data.codePacks).to.deep.equal([{ name: 'agentctl-pack-echo', version: '1.2.3' }, { name: 'agentctl-pack-other', version: '2.0.0' }]);

    p.write('more/other/extra.mjs', 'export {};\n');
    const drift = diagnosticWithCode(errorDocument(runCli(['packs', 'verify-lock', '--output', 'json'], { cwd: p.dir }), 2), 'AGENTCTL_E_PACK_LOCK_MISMATCH');
    expect(drift.message).to.contain('code pack agentctl-pack-other changed: extra.mjs was added;');
  });

  it('packs vendor prints paths relative to the current folder, and refuses two workflows with one file name', () => {
    const p = project(['echo']);
    writeConfig(p, { packs: ['./packs/echo'] });
    p.write('a/wf.yaml', ECHO_WORKFLOW);
    p.write('b/wf.yaml', ECHO_WORKFLOW);
    const collision = diagnosticWithCode(errorDocument(runCli(['packs', 'vendor', '--out', 'ci', 'a/wf.yaml', 'b/wf.yaml', '--output', 'json'], { cwd: p.dir }), 2), 'AGENTCTL_E_USAGE');
    expect(collision.message).to.equal('workflows a/wf.yaml and b/wf.yaml would both be vendored as wf.yaml');
    expect(collision.help).to.equal('rename one of them, or vendor them into separate folders (--out)');
    expect(existsSync(p.file('ci'))).to.equal(false);

    const vendored = runCli(['packs', 'vendor', '--out', 'ci', 'a/wf.yaml'], { cwd: p.dir });
    expect(vendored.status, vendored.stderr).to.equal(0);
    expect(vendored.stdout).to.match(/^vendored 1 code pack\(s\) and 0 declarative pack\(s\) into ci\n {2}agentctl-pack-echo: packs\/agentctl-pack-echo\.mjs \(\d+ bytes\)\nrun: agentctl run ci\/wf\.yaml --locked --offline\n$/);
    expect(vendored.stdout).to.not.contain(p.dir);
    expect(outcome(runCli(['run', 'ci/wf.yaml', '--locked', '--offline', '--db', p.db, '--output', 'json'], { cwd: p.dir }), 0).data.output).to.deep.equal({ said: 'echo: world' });
  });

  describe("usage errors in agentctl's words, with the command's usage line", () => {
    const cases: { args: string[]; message: string; help: string }[] = [
      { args: ['run'], message: 'agentctl run needs the argument <file>', help: 'usage: agentctl run <file> [options]; see agentctl run --help' },
      { args: ['packs', 'inspect'], message: 'agentctl packs inspect needs the argument <file>', help: 'usage: agentctl packs inspect <file> [options]; see agentctl packs inspect --help' },
      { args: ['packs', 'vendor'], message: 'agentctl packs vendor needs --out', help: 'usage: agentctl packs vendor [workflows..] [options]; see agentctl packs vendor --help' },
      { args: ['check', 'wf.yaml', '--color', 'purple'], message: '--color "purple" is not one of "auto", "always", "never"', help: 'usage: agentctl check <file> [options]; see agentctl check --help' },
    ];
    for (const item of cases) {
      it(`agentctl ${item.args.join(' ')}`, () => {
        const p = project();
        const document = errorDocument(runCli([...item.args, '--no-config', '--output', 'json'], { cwd: p.dir }), 2);
        const found = diagnosticWithCode(document, 'AGENTCTL_E_USAGE');
        expect(found.message).to.equal(item.message);
        expect(found.help).to.equal(item.help);
      });
    }
  });
});
