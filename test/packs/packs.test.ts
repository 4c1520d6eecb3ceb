// Every pack under packs/ is built as an outside author builds one: its own package.json, @agentctl/sdk as a peer
// dependency, sources that import only @agentctl/sdk* (its tests also @agentctl/testing). Its own `npm test` runs here, in a copy of its folder with its
// dependencies installed (offline, see test/support/packs.ts), against the built agentctl.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporaryFolder } from '../../core/testing/fixtures.js';
import { ROOT } from '../support/cli.js';
import { installDependencies } from '../support/packs.js';

const PACKS = join(ROOT, 'packs');
// Code packs (a package.json); declarative packs (agentctl.pack.yaml) are run by test/cases/declarative-packs.test.ts.
const packs = existsSync(PACKS) ? readdirSync(PACKS).filter((name) => existsSync(join(PACKS, name, 'package.json'))).sort() : [];

interface MochaReport {
  readonly stats: { readonly passes: number; readonly failures: number; readonly pending: number };
  readonly passes: readonly { readonly fullTitle: string }[];
}

describe('packs', () => {
  it('packs/ holds the hello pack', () => {
    expect(packs).to.include('hello');
  });

  for (const name of packs) {
    describe(`packs/${name}`, () => {
      let folder = '';
      before(() => {
        folder = join(temporaryFolder('agentctl-pack-'), name);
        cpSync(join(PACKS, name), folder, { recursive: true, filter: (path) => !path.includes('node_modules') });
        installDependencies(folder);
      });
      after(() => rmSync(join(folder, '..'), { recursive: true, force: true }));

      it('declares @agentctl/sdk as a peer dependency and is an ES module', () => {
        const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { type?: string; peerDependencies?: Record<string, string> };
        expect(manifest.type).to.equal('module');
        expect(manifest.peerDependencies).to.have.property('@agentctl/sdk');
      });

      // A pack written in TypeScript (its own tsconfig.json): its compiler run is the check, and must catch a mistake too.
      const typescript = existsSync(join(PACKS, name, 'tsconfig.json'));
      if (typescript) {
        it('type-checks (tsc -p) against the published declarations, which catch a mistake', function () {
          this.timeout(60_000);
          const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
          const check = () => spawnSync(process.execPath, [tsc, '--noEmit', '-p', 'tsconfig.json'], { cwd: folder, encoding: 'utf8' });
          const clean = check();
          expect(clean.status, clean.stdout).to.equal(0);
          writeFileSync(join(folder, 'src', 'typo.ts'), "import pack from './index.js';\nexport const typo = pack.nmae;\n");
          const result = check();
          rmSync(join(folder, 'src', 'typo.ts'));
          const errors = result.stdout.split('\n').filter((line) => /error TS\d+/.test(line));
          expect(errors).to.have.length(1);
          expect(errors[0]).to.match(/^src\/typo\.ts\(2,\d+\): error TS2339: Property 'nmae' does not exist/);
        });
      }

      if (!typescript) it('type-checks (// @ts-check) against the published declarations, which catch a mistake', function () {
        this.timeout(60_000);
        // One compiler run: the pack's own files must be clean, and a file with a typo must be the only one reported.
        // Every pack default-exports its plugin definition.
        writeFileSync(join(folder, 'typo.mjs'), "// @ts-check\nimport pack from './index.mjs';\nexport const typo = pack.nmae;\n");
        const sources = readdirSync(folder, { recursive: true, encoding: 'utf8' }).filter((path) => /\.m?js$/.test(path) && !path.startsWith('node_modules'));
        const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
        const flags = ['--noEmit', '--allowJs', '--checkJs', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2023', '--skipLibCheck'];
        const result = spawnSync(process.execPath, [tsc, ...flags, '--types', 'node', '--typeRoots', join(ROOT, 'node_modules', '@types'), ...sources], { cwd: folder, encoding: 'utf8' });
        rmSync(join(folder, 'typo.mjs'));
        const errors = result.stdout.split('\n').filter((line) => /error TS\d+/.test(line));
        expect(errors).to.have.length(1);
        expect(errors[0]).to.match(/^typo\.mjs\(3,\d+\): error TS2339: Property 'nmae' does not exist/);
      });

      // A pack shipped inside agentctl (no test script of its own) is tested through the CLI by the main suite.
      const manifest = JSON.parse(readFileSync(join(PACKS, name, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
      if (manifest.scripts?.test !== undefined) it('passes its own npm test', () => {
        const result = spawnSync('npm', ['test', '--silent', '--', '--reporter', 'json'], { cwd: folder, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
        expect(result.status, result.stderr).to.equal(0);
        const report = JSON.parse(result.stdout) as MochaReport;
        expect(report.stats.failures).to.equal(0);
        expect(report.stats.pending).to.equal(0);
        expect(report.stats.passes).to.be.greaterThan(0);
        if (name === 'hello') {
          expect(report.passes.map((test) => test.fullTitle)).to.deep.equal([
            'hello.greet (action kind cases) valid: greets by name',
            "hello.greet (action kind cases) valid: uses the action's salutation",
            'hello.greet (action kind cases) valid: a name from a workflow input',
            'hello.greet (action kind cases) invalid: the name is required',
            'hello.greet (action kind cases) invalid: no other input field',
            "hello.greet (action kind cases) invalid: a blank name fails the task with the pack's own code",
          ]);
        }
      });
    });
  }
});
