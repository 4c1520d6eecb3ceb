// Code packs listed in the project config, through the real CLI: loaded, checked and registered before any command
// touches a database; each refusal has its own code, exit 2, names the config file and the entry, and leaves no
// database file behind.
import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { runCli } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome, rows, workflow } from './helpers.js';
import { ECHO_WORKFLOW, FIXTURE_PACKS, packProject, writeConfig, type Project } from './pack-project.js';

describe('code packs from the project config', () => {
  let project: Project;
  afterEach(() => project?.cleanup());

  it('a workflow using a path pack\'s action kind runs to succeeded, with the options the config gives it', () => {
    project = packProject(['echo']);
    writeConfig(project, { packs: [{ path: './packs/echo', options: { prefix: 'hi' } }] });
    project.write('wf.yaml', ECHO_WORKFLOW);
    const document = outcome(runCli(['run', 'wf.yaml', '--db', project.db, '--output', 'json'], { cwd: project.dir }), 0);
    expect(document.data).to.include({ state: 'succeeded' });
    expect(document.data.output).to.deep.equal({ said: 'hi world' });
    expect(rows(project.db, 'SELECT state FROM runs')).to.deep.equal([{ state: 'succeeded' }]);
  });

  it('an npm pack resolves from the config folder\'s node_modules, and its schema\'s defaults apply without options', () => {
    project = packProject();
    cpSync(join(FIXTURE_PACKS, 'echo'), project.file('node_modules/agentctl-pack-echo'), { recursive: true });
    project.write('.agentctlrc.json', JSON.stringify({ packs: ['agentctl-pack-echo'] }));
    project.write('flows/wf.yaml', ECHO_WORKFLOW);
    const document = outcome(runCli(['run', 'flows/wf.yaml', '--db', project.db, '--output', 'json'], { cwd: project.dir }), 0);
    expect(document.data.output).to.deep.equal({ said: 'echo: world' });
    const list = outcome(runCli(['plugins', 'list', '--output', 'json'], { cwd: project.dir }), 0);
    expect(list.data.plugins.at(-1)).to.include({ name: 'agentctl-pack-echo', version: '1.2.3', source: 'npm' });
  });

  describe('refusals: exit 2, a code of their own, the config file and entry named, no database file', () => {
    const cases: { title: string; packs: unknown[]; copy?: string[]; code: string; path: string; message: string }[] = [
      { title: 'a pack whose hostRange excludes this agentctl', packs: ['./packs/wrong-range'], code: 'AGENTCTL_E_PACK_HOST_RANGE', path: 'packs[0]', message: 'pack agentctl-pack-wrong-range@2.0.0 supports agentctl >=99.0.0; this is agentctl 0.1.0' },
      { title: 'the same pack listed twice', packs: ['./packs/echo', { path: './packs/echo' }], code: 'AGENTCTL_E_PACK_DUPLICATE', path: 'packs[1]', message: 'pack agentctl-pack-echo (./packs/echo) has the name of another pack in the config' },
      { title: 'a pack that registers a secret form a builtin owns', packs: ['./packs/env-conflict'], code: 'AGENTCTL_E_PACK_CONFLICT', path: 'packs[0]', message: 'secret form env is owned by plugin builtin.secrets.env; plugin agentctl-pack-env-conflict cannot register it too' },
      { title: 'a pack that throws while it is imported', packs: ['./packs/import-throws'], code: 'AGENTCTL_E_PACK_IMPORT', path: 'packs[0]', message: 'the pack cannot start: ACME_HOME is not set' },
      { title: 'a pack whose setup throws', packs: ['./packs/setup-throws'], code: 'AGENTCTL_E_PACK_SETUP', path: 'packs[0]', message: 'pack agentctl-pack-setup-throws failed to register: setup exploded' },
      { title: 'a path that does not exist', packs: ['./packs/nowhere'], code: 'AGENTCTL_E_PACK_NOT_FOUND', path: 'packs[0]', message: 'pack path ./packs/nowhere does not exist' },
      { title: 'an npm pack that is not installed', packs: ['agentctl-pack-absent'], code: 'AGENTCTL_E_PACK_NOT_FOUND', path: 'packs[0]', message: 'pack agentctl-pack-absent is not installed' },
      { title: 'options that fail the pack\'s schema', packs: [{ path: './packs/echo', options: { prefix: 5 } }], code: 'AGENTCTL_E_PACK_OPTIONS', path: 'packs[0].options.prefix', message: 'pack agentctl-pack-echo: packs[0].options.prefix: Invalid input: expected string, received number' },
      { title: 'options given to a pack that takes none', packs: [{ path: './packs/setup-throws', options: { verbose: true } }], code: 'AGENTCTL_E_PACK_OPTIONS', path: 'packs[0].options', message: 'pack agentctl-pack-setup-throws takes no options' },
      { title: 'an action kind not named after the pack', packs: ['./packs/bad-namespace'], code: 'AGENTCTL_E_PACK_NAMESPACE', path: 'packs[0]', message: "pack agentctl-pack-bad-namespace registers action kind deploy; a pack's action kinds are named bad-namespace.NAME (or agentctl-pack-bad-namespace.NAME)" },
      { title: 'a module that exports no plugin', packs: ['./packs/no-plugin'], code: 'AGENTCTL_E_PACK_INVALID', path: 'packs[0]', message: 'exports no plugin definition' },
    ];
    for (const item of cases) {
      it(`${item.title}: ${item.code}`, () => {
        project = packProject(['echo', 'wrong-range', 'env-conflict', 'import-throws', 'setup-throws', 'bad-namespace', 'no-plugin']);
        const config = writeConfig(project, { packs: item.packs });
        project.write('wf.yaml', ECHO_WORKFLOW);
        const document = errorDocument(runCli(['run', 'wf.yaml', '--db', project.db, '--output', 'json'], { cwd: project.dir }), 2);
        const found = diagnosticWithCode(document, item.code);
        expect(found).to.include({ file: config, path: item.path });
        expect(found.message).to.contain(item.message);
        expect(existsSync(project.db)).to.equal(false);
      });
    }

    it('two packs that register the same secret form: AGENTCTL_E_PACK_CONFLICT names both', () => {
      project = packProject();
      for (const letter of ['a', 'b']) {
        project.write(`packs/${letter}/package.json`, JSON.stringify({ name: `forms-${letter}`, type: 'module', main: 'index.mjs' }));
        project.write(
          `packs/${letter}/index.mjs`,
          `import { definePlugin } from '@agentctl/sdk';\nexport const plugin = definePlugin({ name: 'forms-${letter}', version: '1.0.0', hostRange: '^0.1.0', setup(api) { api.registerSecretResolver('vault', async () => 'value'); } });\n`,
        );
      }
      const config = writeConfig(project, { packs: ['./packs/a', './packs/b'] });
      project.write('wf.yaml', ECHO_WORKFLOW);
      const document = errorDocument(runCli(['check', 'wf.yaml', '--output', 'json'], { cwd: project.dir }), 2);
      const found = diagnosticWithCode(document, 'AGENTCTL_E_PACK_CONFLICT');
      expect(found).to.include({ file: config, path: 'packs[1]', plugin: 'forms-b' });
      expect(found.message).to.contain('secret form vault is owned by plugin forms-a; plugin forms-b cannot register it too');
    });
  });

  it('defineActionKind without plugin names the pack after the kind\'s namespace, so a one-kind pack loads; a kind that fits no name says what to write', () => {
    project = packProject();
    const kind = (name: string, plugin?: string) => `import { defineActionKind, z } from '@agentctl/sdk';
export default defineActionKind({ ${plugin ? `plugin: '${plugin}', ` : ''}name: '${name}', version: '1.0.0', hostRange: '^0.1.0', description: 'upper-cases text',
  actionSchema: z.strictObject({}), inputSchema: z.strictObject({ text: z.string() }), effect: { effectClass: 'pure', risk: 'low', idempotency: 'pure' },
  async dispatch({ input }) { return { upper: input.text.toUpperCase() }; } });
`;
    project.write('packs/upper/package.json', JSON.stringify({ name: 'mypack', type: 'module', exports: './index.mjs' }));
    project.write('packs/upper/index.mjs', kind('mypack.upper'));
    writeConfig(project, { packs: ['./packs/upper'] });
    project.write('wf.yaml', workflow({ actions: { up: { kind: 'mypack.upper' } }, tasks: [{ id: 'up', uses: 'action:up', with: { text: 'loud' } }], outputs: { upper: '${{ tasks.up.output.upper }}' } }));
    expect(outcome(runCli(['run', 'wf.yaml', '--db', project.db, '--output', 'json'], { cwd: project.dir }), 0).data.output).to.deep.equal({ upper: 'LOUD' });
    const list = outcome(runCli(['plugins', 'list', '--output', 'json'], { cwd: project.dir }), 0);
    expect(list.data.plugins.at(-1)).to.deep.include({ name: 'mypack', source: 'path', actionKinds: ['mypack.upper'] });

    // A plugin name given by hand that the kind does not start with: the help names both fixes, spelled out.
    project.write('packs/upper/index.mjs', kind('tools.upper', 'acme'));
    const refused = diagnosticWithCode(errorDocument(runCli(['check', 'wf.yaml', '--output', 'json'], { cwd: project.dir }), 2), 'AGENTCTL_E_PACK_NAMESPACE');
    expect(refused.message).to.equal("pack acme registers action kind tools.upper; a pack's action kinds are named acme.NAME (pack ./packs/upper in " + project.file('agentctl.config.mjs') + ')');
    expect(refused.help).to.equal("write the kind's name as 'acme.upper' (the pack's name, a dot, then the kind's own name), or name the pack after the kind: plugin: 'tools' in defineActionKind (name: 'tools' in definePlugin)");
  });

  it('plugins list shows builtins and packs with their source, contributions and taps', () => {
    project = packProject(['echo']);
    writeConfig(project, { packs: ['./packs/echo'] });
    const human = runCli(['plugins', 'list'], { cwd: project.dir });
    expect(human.status).to.equal(0);
    expect(human.stdout).to.contain('builtin.assign@0.1.0  builtin  owns kind builtin.assign\n');
    expect(human.stdout).to.contain('agentctl-pack-echo@1.2.3  path  owns kind agentctl-pack-echo.say  taps policy@security, preflight\n');
    const document = outcome(runCli(['plugins', 'list', '--output', 'json'], { cwd: project.dir }), 0);
    const echo = document.data.plugins.find((plugin: { name: string }) => plugin.name === 'agentctl-pack-echo');
    expect(echo).to.deep.include({ source: 'path', actionKinds: ['agentctl-pack-echo.say'], hostRange: '^0.1.0', description: 'Returns its text after the configured prefix.' });
    expect(echo.taps).to.deep.equal([
      { hook: 'policy', name: 'echo-guard', stage: 'security' },
      { hook: 'preflight', name: 'echo-ready', stage: '0' },
    ]);
  });

  it('plugins order --hook shows the taps in the order the hook calls them', () => {
    project = packProject(['echo']);
    writeConfig(project, { packs: ['./packs/echo'] });
    const policy = outcome(runCli(['plugins', 'order', '--hook', 'policy', '--output', 'json'], { cwd: project.dir }), 0);
    expect(policy.kind).to.equal('HookOrder');
    expect(policy.data).to.deep.equal({ hook: 'policy', taps: [{ hook: 'policy', plugin: 'agentctl-pack-echo', name: 'echo-guard', stage: 'security' }] });
    const preflight = outcome(runCli(['plugins', 'order', '--hook', 'preflight', '--output', 'json'], { cwd: project.dir }), 0);
    expect(preflight.data.taps.map((tap: { plugin: string }) => tap.plugin)).to.deep.equal(['builtin.shell.exec', 'extension.process', 'builtin.isolation.container', 'agentctl-pack-echo']);
    const human = runCli(['plugins', 'order', '--hook', 'policy'], { cwd: project.dir });
    expect(human.stdout).to.equal('  1. agentctl-pack-echo  echo-guard  stage security\n');
    const dispatch = outcome(runCli(['plugins', 'order', '--hook', 'dispatch:agentctl-pack-echo.say', '--output', 'json'], { cwd: project.dir }), 0);
    expect(dispatch.data.taps).to.deep.equal([{ hook: 'dispatch:agentctl-pack-echo.say', plugin: 'agentctl-pack-echo', name: 'agentctl-pack-echo', stage: '0' }]);
    const unknown = errorDocument(runCli(['plugins', 'order', '--hook', 'launch', '--output', 'json'], { cwd: project.dir }), 2);
    expect(diagnosticWithCode(unknown, 'AGENTCTL_E_USAGE').message).to.equal('--hook launch is not a hook');
  });

  it('commands that build no host do not load packs: a missing pack does not stop runs list', () => {
    project = packProject();
    writeConfig(project, { packs: ['./packs/nowhere'] });
    const document = errorDocument(runCli(['runs', 'list', '--db', project.db, '--output', 'json'], { cwd: project.dir }), 5);
    expect(document.diagnostics[0].code).to.equal('AGENTCTL_E_DB_OPEN');
  });
});
