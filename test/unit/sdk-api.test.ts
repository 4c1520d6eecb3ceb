// The public declarations are pinned: the built .d.ts of the three entry points equal sdk/api-report.md, reach no core
// module, and document every export; the type-level assertions of test/types/sdk-api.ts compile against them.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporaryFolder } from '../../core/testing/fixtures.js';
import { ROOT } from '../support/cli.js';

const SCRIPT = join(ROOT, 'scripts', 'api-report.mjs');
const check = (...args: string[]) => spawnSync(process.execPath, [SCRIPT, '--check', ...args], { encoding: 'utf8' });

describe('public SDK declarations', () => {
  it('equal the committed API report (npm run api:update refreshes it)', () => {
    const result = check();
    expect(result.stderr).to.equal('');
    expect(result.status).to.equal(0);
  });

  describe('the report check fails on', () => {
    let root = '';
    beforeEach(() => {
      root = temporaryFolder('agentctl-api-');
      mkdirSync(join(root, 'sdk'));
      for (const manifest of ['package.json', 'sdk/package.json']) cpSync(join(ROOT, manifest), join(root, manifest));
      for (const folder of ['sdk/dist', 'dist/core/testing']) {
        mkdirSync(join(root, folder), { recursive: true });
        cpSync(join(ROOT, folder), join(root, folder), { recursive: true, filter: (path) => !path.endsWith('.js') });
      }
    });
    afterEach(() => rmSync(root, { recursive: true, force: true }));
    const edit = (path: string, change: (text: string) => string) => writeFileSync(join(root, path), change(readFileSync(join(root, path), 'utf8')));
    const run = () => check('--root', root, '--report', join(ROOT, 'sdk', 'api-report.md'));

    it('a changed signature, naming the file', () => {
      expect(run().status, 'an unchanged copy passes').to.equal(0);
      edit('sdk/dist/plugin.d.ts', (text) => text.replace('readonly hostRange: string;', 'readonly hostRange?: string;'));
      const result = run();
      expect(result.status).to.equal(1);
      expect(result.stderr).to.contain('in sdk/dist/plugin.d.ts').and.to.contain('readonly hostRange?: string;');
    });

    it('an export without TSDoc', () => {
      edit('sdk/dist/json.d.ts', (text) => `${text}\nexport declare const undocumentedThing: number;\n`);
      const result = run();
      expect(result.status).to.equal(1);
      expect(result.stderr).to.contain('sdk/dist/json.d.ts: undocumentedThing has no TSDoc comment');
    });

    it('a public declaration that reaches a core module', () => {
      mkdirSync(join(root, 'dist/core'), { recursive: true });
      writeFileSync(join(root, 'dist/core/host.d.ts'), '/** The host. */\nexport declare class Host {}\n');
      edit('dist/core/testing/host.d.ts', (text) => `import type { Host } from '../host.js';\n${text}\n/** Leaks. */\nexport type Leak = Host;\n`);
      const result = run();
      expect(result.status).to.equal(1);
      expect(result.stderr).to.contain('dist/core/host.d.ts is reached from a public entry point but is not in sdk/ or core/testing/');
    });
  });

  it('satisfy the type-level assertions of test/types/sdk-api.ts, compiled as a pack compiles against them', () => {
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const flags = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2023', '--skipLibCheck', '--types', 'node'];
    const result = spawnSync(process.execPath, [tsc, ...flags, join(ROOT, 'test', 'types', 'sdk-api.ts')], { cwd: ROOT, encoding: 'utf8' });
    expect(result.stdout + result.stderr).to.equal('');
    expect(result.status).to.equal(0);
  });
});
