// What the code-pack lock covers: every file of the pack (hidden ones too), an entry module only inside the pack's
// folder, and the packages installed for it (its own node_modules and its hoisted dependencies). Each case is a way
// to run code after `packs lock` that the lock did not pin, and each is refused before that code runs.
import { appendFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { runCli } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome, workflow } from './helpers.js';
import { packProject, writeConfig, type Project } from './pack-project.js';

/** A pack `agentctl-pack-cover` whose one kind, cover.say, returns what its implementation module exports. */
const PLUGIN = (implementation: string) => `import { definePlugin, z } from '@agentctl/sdk';
import { said } from '${implementation}';
export default definePlugin({
  name: 'agentctl-pack-cover', version: '1.0.0', hostRange: '^0.1.0',
  setup(api) {
    api.registerActionKind({
      name: 'cover.say', description: 'says what its implementation says',
      actionSchema: z.strictObject({}), inputSchema: z.strictObject({}),
      effect: { effectClass: 'pure', risk: 'low', idempotency: 'pure' },
      async dispatch() { return { said }; },
    });
  },
});
`;

const WORKFLOW = workflow({ actions: { say: { kind: 'cover.say' } }, tasks: [{ id: 'say', uses: 'action:say' }], outputs: { said: '${{ tasks.say.output.said }}' } });

/** Pack `cover`, which imports its declared dependency `cover-said`, installed in `modules` (a folder of the project). */
const packWithDependency = (modules: string): Record<string, string> => ({
  'packs/cover/package.json': JSON.stringify({ name: 'agentctl-pack-cover', type: 'module', exports: './index.mjs', dependencies: { 'cover-said': '1.0.0' } }),
  'packs/cover/index.mjs': PLUGIN('cover-said'),
  [`${modules}/cover-said/package.json`]: JSON.stringify({ name: 'cover-said', version: '1.0.0', type: 'module', exports: './said.mjs' }),
  [`${modules}/cover-said/said.mjs`]: "export const said = 'pinned';\n",
});

describe('what the code-pack lock covers', () => {
  const cleanups: Project[] = [];
  afterEach(() => cleanups.splice(0).forEach((project) => project.cleanup()));
  const project = (files: Record<string, string>) => {
    const p = packProject();
    cleanups.push(p);
    for (const [name, text] of Object.entries(files)) p.write(name, text);
    writeConfig(p, { packs: ['./packs/cover'] });
    p.write('wf.yaml', WORKFLOW);
    return p;
  };
  const cli = (p: Project, args: string[]) => runCli([...args, '--output', 'json'], { cwd: p.dir });
  /** Locks, runs once as locked, then appends a throw to `file` and returns the refusal of the next locked run. */
  const tamper = (p: Project, file: string) => {
    outcome(cli(p, ['packs', 'lock']), 0);
    expect(outcome(cli(p, ['run', 'wf.yaml', '--locked', '--offline', '--db', p.db]), 0).data.output).to.deep.equal({ said: 'pinned' });
    appendFileSync(p.file(file), '\nthrow new Error("unpinned code ran");\n');
    const refused = diagnosticWithCode(errorDocument(cli(p, ['run', 'wf.yaml', '--locked', '--offline', '--db', join(p.dir, 'after.db')]), 2), 'AGENTCTL_E_PACK_LOCK_MISMATCH');
    expect(refused.message).to.not.contain('unpinned code ran');
    expect(existsSync(join(p.dir, 'after.db'))).to.equal(false);
    return refused.message as string;
  };

  it('a hidden entry module (main: .impl/index.mjs) is pinned, and the mismatch names the changed file', () => {
    const p = project({
      'packs/cover/package.json': JSON.stringify({ name: 'agentctl-pack-cover', type: 'module', main: '.impl/index.mjs' }),
      'packs/cover/.impl/index.mjs': PLUGIN('./said.mjs'),
      'packs/cover/.impl/said.mjs': "export const said = 'pinned';\n",
    });
    const message = tamper(p, 'packs/cover/.impl/said.mjs');
    expect(message).to.match(/^code pack agentctl-pack-cover changed: \.impl\/said\.mjs changed; its files have the digest sha256:[0-9a-f]{64}, the lock pins sha256:[0-9a-f]{64}; it was not loaded/);
  });

  it('a file added to the pack after the lock is named as added', () => {
    const p = project({
      'packs/cover/package.json': JSON.stringify({ name: 'agentctl-pack-cover', type: 'module', exports: './index.mjs' }),
      'packs/cover/index.mjs': PLUGIN('./said.mjs'),
      'packs/cover/said.mjs': "export const said = 'pinned';\n",
    });
    outcome(cli(p, ['packs', 'lock']), 0);
    p.write('packs/cover/.hook.mjs', 'export {};\n');
    const refused = diagnosticWithCode(errorDocument(cli(p, ['check', 'wf.yaml', '--locked']), 2), 'AGENTCTL_E_PACK_LOCK_MISMATCH');
    expect(refused.message).to.contain('code pack agentctl-pack-cover changed: .hook.mjs was added; its files have the digest');
  });

  it('an entry module outside the pack folder (main: ../shared/x.mjs) is refused, lock or not', () => {
    const p = project({
      'packs/cover/package.json': JSON.stringify({ name: 'agentctl-pack-cover', type: 'module', main: '../shared/x.mjs' }),
      'packs/shared/x.mjs': PLUGIN('./said.mjs'),
      'packs/shared/said.mjs': "export const said = 'pinned';\n",
    });
    for (const args of [['run', 'wf.yaml', '--db', p.db], ['packs', 'lock']]) {
      const refused = diagnosticWithCode(errorDocument(cli(p, args), 2), 'AGENTCTL_E_PACK_ENTRY_OUTSIDE');
      expect(refused.message).to.equal(`pack ./packs/cover: its entry module ../shared/x.mjs resolves outside the pack's folder ${p.file('packs/cover')} (to ${p.file('packs/shared/x.mjs')})`);
      expect(refused.path).to.equal('packs[0]');
      expect(refused.help).to.contain('move the module into the pack');
    }
    expect(existsSync(p.db)).to.equal(false);
    expect(existsSync(p.file('agentctl.pack.lock'))).to.equal(false);
  });

  it("a package in the pack's own node_modules is pinned: a changed byte of it is refused, naming the package", () => {
    const p = project(packWithDependency('packs/cover/node_modules'));
    const message = tamper(p, 'packs/cover/node_modules/cover-said/said.mjs');
    expect(message).to.match(/^code pack agentctl-pack-cover changed: installed package cover-said \(packs\/cover\/node_modules\/cover-said\) changed: digest sha256:[0-9a-f]{64}, the lock pins sha256:[0-9a-f]{64}; it was not loaded/);
  });

  it('a hoisted dependency (node_modules of the project) is pinned too, and one installed after the lock is refused', () => {
    const p = project(packWithDependency('node_modules'));
    const message = tamper(p, 'node_modules/cover-said/said.mjs');
    expect(message).to.contain('installed package cover-said (node_modules/cover-said) changed');
    // A package the pack's own node_modules gains after the lock shadows the hoisted one: also drift.
    p.write('packs/cover/node_modules/cover-said/package.json', JSON.stringify({ name: 'cover-said', version: '2.0.0', type: 'module', exports: './said.mjs' }));
    p.write('packs/cover/node_modules/cover-said/said.mjs', "export const said = 'shadowed';\n");
    const refused = diagnosticWithCode(errorDocument(cli(p, ['check', 'wf.yaml', '--locked']), 2), 'AGENTCTL_E_PACK_LOCK_MISMATCH');
    expect(refused.message).to.contain('installed package cover-said@2.0.0 (packs/cover/node_modules/cover-said) is not in the lock');
  });
});
