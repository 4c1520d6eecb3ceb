// A project folder as a user has it: agentctl installed in node_modules (here a link to this checkout, so the built
// dist/ runs), the packs it uses, a config file and workflows. Fixture packs import `agentctl/sdk` and `zod`, which
// resolve from the project's node_modules exactly as they would after `npm install agentctl`.
import { cpSync, mkdirSync, realpathSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, workspace } from '../support/cli.js';
import { workflow } from './helpers.js';

export const FIXTURE_PACKS = join(ROOT, 'test', 'fixtures', 'packs');

export type Project = ReturnType<typeof workspace>;

/** A temporary project with agentctl (and zod) linked into node_modules and the named fixture packs under packs/. */
export function packProject(packs: readonly string[] = []): Project {
  const project = workspace({ 'package.json': '{"name": "pack-project", "private": true}\n' });
  mkdirSync(project.file('node_modules'));
  symlinkSync(ROOT, project.file('node_modules/agentctl'));
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
