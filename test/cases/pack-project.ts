// A project folder as a user has it: agentctl installed in node_modules (`@agentctl/cli`, here a link to this
// checkout, so the built dist/ runs), the packs it uses, a config file and workflows. Fixture packs import
// `@agentctl/sdk` (their peer dependency, which agentctl hands them at run time) and `zod`, which resolves from the
// project's node_modules as it would after `npm install`.
import { cpSync, mkdirSync, realpathSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, workspace } from '../support/cli.js';
import { workflow } from './helpers.js';

export const FIXTURE_PACKS = join(ROOT, 'test', 'fixtures', 'packs');

export type Project = ReturnType<typeof workspace>;

/** A temporary project with agentctl (and zod) linked into node_modules and the named fixture packs under packs/. */
export function packProject(packs: readonly string[] = []): Project {
  const project = workspace({ 'package.json': '{"name": "pack-project", "private": true}\n' });
  mkdirSync(project.file('node_modules/@agentctl'), { recursive: true });
  symlinkSync(ROOT, project.file('node_modules/@agentctl/cli'));
  // What a pack author installs for the editor's types and the tests (docs/plugin-authoring.md).
  symlinkSync(realpathSync(join(ROOT, 'node_modules', '@agentctl', 'sdk')), project.file('node_modules/@agentctl/sdk'));
  symlinkSync(realpathSync(join(ROOT, 'node_modules', 'zod')), project.file('node_modules/zod'));
  for (const name of packs) cpSync(join(FIXTURE_PACKS, name), project.file(`packs/${name}`), { recursive: true });
  return project;
}

/** Writes `agentctl.config.mjs` exporting `config` (JSON-serialisable) as its default export. */
export function writeConfig(project: Project, config: unknown, name = 'agentctl.config.mjs'): string {
  return project.write(name, `export default ${JSON.stringify(config, null, 2)};\n`);
}

/** A workflow with one task of the echo pack's kind, and its output as the run's output `said`. */
export const ECHO_WORKFLOW = workflow({
  actions: { say: { kind: 'agentctl-pack-echo.say' } },
  tasks: [{ id: 'say', uses: 'action:say', with: { text: 'world' } }],
  outputs: { said: '${{ tasks.say.output.said }}' },
});
