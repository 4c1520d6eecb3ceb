// The project config through the real CLI: where it is found, what it sets (db, output, color), where each value
// came from (`config show`), --config and --no-config, and the diagnostics of a bad config file.
import { existsSync, symlinkSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { ROOT, runCli } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome, workflow } from './helpers.js';
import { ECHO_WORKFLOW, packProject, writeConfig, type Project } from './pack-project.js';

const ASSIGN = workflow({ actions: { set: { kind: 'builtin.assign' } }, tasks: [{ id: 'set', uses: 'action:set', with: { x: 1 } }] });

describe('project config', () => {
  let project: Project;
  afterEach(() => project?.cleanup());

  it('config show: each value with its origin — the config file, a flag, or the default', () => {
    project = packProject();
    const file = project.write('.agentctlrc.yaml', 'db: state/ledger.db\noutput: json\npacks:\n  - {path: ./packs/echo, options: {prefix: hi}}\n');
    const fromFile = outcome(runCli(['config', 'show'], { cwd: project.dir }), 0);
    expect(fromFile.kind).to.equal('ConfigShow');
    expect(fromFile.data).to.deep.equal({
      file,
      searchedFrom: project.dir,
      settings: {
        db: { value: join(project.dir, 'state', 'ledger.db'), source: file },
        output: { value: 'json', source: file },
        color: { value: 'auto', source: 'default' },
        packs: { value: [{ path: './packs/echo', options: { prefix: 'hi' } }], source: file },
        stateKeys: { value: {}, source: 'default' },
      },
    });
    const flags = runCli(['config', 'show', '--output', 'human', '--db', 'other.db', '--color', 'never'], { cwd: project.dir });
    expect(flags.status).to.equal(0);
    expect(flags.stdout).to.equal(
      // The value column is as wide as the widest value, here the packs.
      [`config file: ${file}`, `db     ${'other.db'.padEnd(28)}  from flag`, `output ${'human'.padEnd(28)}  from flag`, `color  ${'never'.padEnd(28)}  from flag`, `packs  ./packs/echo {"prefix":"hi"}  from ${file}`, ''].join('\n'),
    );
  });

  it('the config db is the default ledger of run, relative to the config file; --db still wins', () => {
    project = packProject();
    project.write('agentctl.config.json', JSON.stringify({ db: 'state/from-config.db' }));
    project.write('flows/wf.yaml', ASSIGN);
    outcome(runCli(['run', 'flows/wf.yaml', '--output', 'json'], { cwd: project.dir }), 0);
    expect(existsSync(project.file('state/from-config.db'))).to.equal(true);
    outcome(runCli(['run', 'flows/wf.yaml', '--output', 'json', '--db', project.db], { cwd: project.dir }), 0);
    expect(existsSync(project.db)).to.equal(true);
  });

  it('a command that takes a workflow searches from the workflow\'s folder, and stops at the project root', () => {
    project = packProject();
    const outer = project.write('.agentctlrc.json', JSON.stringify({ output: 'json' }));
    const inner = project.write('team/.agentctlrc.json', JSON.stringify({ color: 'never' }));
    project.write('team/sub/wf.yaml', ASSIGN);
    const shown = outcome(runCli(['config', 'show', 'team/sub/wf.yaml', '--output', 'json'], { cwd: project.dir }), 0);
    expect(shown.data).to.deep.include({ file: inner, searchedFrom: project.file('team/sub') });
    // From the current folder the outer file applies: its output json needs no flag.
    expect(outcome(runCli(['config', 'show'], { cwd: project.dir }), 0).data.file).to.equal(outer);
    // A package.json marks a project root: the search stops there.
    project.write('team/sub/package.json', '{"name": "inner"}');
    const stopped = outcome(runCli(['config', 'show', 'team/sub/wf.yaml', '--output', 'json'], { cwd: project.dir }), 0);
    expect(stopped.data).to.deep.include({ file: null, searchedFrom: project.file('team/sub') });
  });

  it('package.json#agentctl is a config; --config names a file; --no-config uses none', () => {
    project = packProject();
    project.write('package.json', JSON.stringify({ name: 'p', private: true, agentctl: { output: 'json' } }));
    const other = project.write('conf/ci.yaml', 'color: always\n');
    expect(outcome(runCli(['config', 'show'], { cwd: project.dir }), 0).data.file).to.equal(project.file('package.json'));
    const named = outcome(runCli(['config', 'show', '--config', 'conf/ci.yaml', '--output', 'json'], { cwd: project.dir }), 0);
    expect(named.data).to.deep.include({ file: other, searchedFrom: null });
    expect(named.data.settings.color).to.deep.equal({ value: 'always', source: other });
    const none = runCli(['config', 'show', '--no-config'], { cwd: project.dir });
    expect(none.stdout.split('\n')[0]).to.equal('no config file (--no-config)');
    const missing = errorDocument(runCli(['config', 'show', '--config', 'conf/nope.yaml', '--output', 'json'], { cwd: project.dir }), 2);
    expect(diagnosticWithCode(missing, 'AGENTCTL_E_FILE_NOT_FOUND').message).to.equal(`config file ${project.file('conf/nope.yaml')} does not exist`);
  });

  describe('a bad config file: AGENTCTL_E_CONFIG_INVALID, exit 2, the file and the path, no database', () => {
    it('YAML that does not parse names the line and column', () => {
      project = packProject();
      const file = project.write('.agentctlrc.yaml', 'packs:\n  - ./packs/echo\n  bad: [\n');
      project.write('wf.yaml', ASSIGN);
      const document = errorDocument(runCli(['run', 'wf.yaml', '--db', project.db, '--output', 'json'], { cwd: project.dir }), 2);
      expect(diagnosticWithCode(document, 'AGENTCTL_E_CONFIG_INVALID')).to.include({ file, line: 3, column: 3 });
      expect(existsSync(project.db)).to.equal(false);
    });

    it('unknown fields and wrong values are refused with their paths', () => {
      project = packProject();
      const file = project.write('agentctl.config.json', JSON.stringify({ dbs: 'x', output: 'xml', packs: [{ path: './p', option: {} }, 5, { name: 'a', path: './b' }] }));
      project.write('wf.yaml', ASSIGN);
      const document = errorDocument(runCli(['run', 'wf.yaml', '--db', project.db, '--output', 'json'], { cwd: project.dir }), 2);
      expect(document.diagnostics.map((item: { code: string; file: string; path: string }) => [item.code, item.file, item.path])).to.deep.equal(
        ['output', 'dbs', 'packs[0].option', 'packs[1]', 'packs[2]'].map((path) => ['AGENTCTL_E_CONFIG_INVALID', file, path]),
      );
      expect(document.diagnostics[1].message).to.equal(`${file}: dbs: unknown field "dbs"`);
      expect(existsSync(project.db)).to.equal(false);
    });

    it('a JavaScript config without a default export', () => {
      project = packProject();
      const file = project.write('agentctl.config.mjs', 'export const packs = [];\n');
      const document = errorDocument(runCli(['config', 'show', '--output', 'json'], { cwd: project.dir }), 2);
      expect(diagnosticWithCode(document, 'AGENTCTL_E_CONFIG_INVALID')).to.include({ file, message: `${file} has no default export; export the config object as the default export` });
    });
  });

  describe('agentctl.config.ts', () => {
    it('is refused with AGENTCTL_E_CONFIG_TYPESCRIPT when typescript cannot be found from its folder', () => {
      project = packProject();
      const file = project.write('agentctl.config.ts', "export default { output: 'json' as const };\n");
      const document = errorDocument(runCli(['config', 'show', '--output', 'json'], { cwd: project.dir }), 2);
      expect(diagnosticWithCode(document, 'AGENTCTL_E_CONFIG_TYPESCRIPT')).to.include({ file });
    });

    it('is loaded when the project has typescript, and its packs run', () => {
      project = packProject(['echo']);
      symlinkSync(realpathSync(join(ROOT, 'node_modules', 'typescript')), project.file('node_modules/typescript'));
      project.write('agentctl.config.ts', "const prefix: string = 'typed';\nexport default { packs: [{ path: './packs/echo', options: { prefix } }] };\n");
      project.write('wf.yaml', ECHO_WORKFLOW);
      const document = outcome(runCli(['run', 'wf.yaml', '--db', project.db, '--output', 'json'], { cwd: project.dir }), 0);
      expect(document.data.output).to.deep.equal({ said: 'typed world' });
    });
  });

  it('version reads no config: a broken config does not stop it', () => {
    project = packProject();
    writeConfig(project, { output: 'xml' });
    expect(runCli(['version'], { cwd: project.dir }).status).to.equal(0);
  });
});
