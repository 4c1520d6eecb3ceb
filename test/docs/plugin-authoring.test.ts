// docs/plugin-authoring.md builds packs/hello from nothing; this runs it as written. In one temporary folder, in
// document order, each ```… file=PATH block is written to PATH and each line of a ```sh block is run. The commands a
// tutorial may use are few and each is run for real, with one exception: the tests never reach a package registry,
// so `npm install [names]` links the packages from this checkout as npm would install them (test/support/packs.ts).
// A trailing `# exit N` gives the expected exit code (default 0). The files of the pack must equal packs/hello.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { temporaryFolder } from '../../core/testing/fixtures.js';
import { ROOT } from '../support/cli.js';
import { installDependencies } from '../support/packs.js';
import { shellWords } from '../support/shell-words.js';

const DOC = join(ROOT, 'docs', 'plugin-authoring.md');

type Step = { readonly kind: 'file'; readonly path: string; readonly body: string; readonly line: number } | { readonly kind: 'command'; readonly words: string[]; readonly exitCode: number; readonly source: string; readonly line: number };


function steps(markdown: string): Step[] {
  const lines = markdown.split('\n');
  const found: Step[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const open = /^```(\S*)\s*(.*)$/.exec(lines[index]!);
    if (!open) continue;
    const start = index + 1;
    const body: string[] = [];
    for (index += 1; index < lines.length && !/^```\s*$/.test(lines[index]!); index += 1) body.push(lines[index]!);
    const file = /(?:^|\s)file=(\S+)/.exec(open[2]!)?.[1];
    if (file) found.push({ kind: 'file', path: file, body: `${body.join('\n')}\n`, line: start });
    if (open[1] !== 'sh') continue;
    body.forEach((raw, offset) => {
      const source = raw.trim();
      if (source === '' || source.startsWith('#')) return;
      const parsed = shellWords(source);
      const exit = /\bexit\s+(\d+)\b/.exec(parsed.comment);
      found.push({ kind: 'command', words: parsed.words, exitCode: exit ? Number(exit[1]) : 0, source, line: start + 1 + offset });
    });
  }
  return found;
}

const tutorial = steps(readFileSync(DOC, 'utf8'));

describe('docs/plugin-authoring.md: the tutorial, run as written', () => {
  let base = '';
  let cwd = '';
  const outputs = new Map<string, string>();
  before(() => {
    base = temporaryFolder('agentctl-tutorial-');
    cwd = base;
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  it('writes every file of packs/hello except its README, and runs commands', () => {
    const files = tutorial.filter((step) => step.kind === 'file').map((step) => step.path);
    expect(files).to.include.members(['packs/hello/package.json', 'packs/hello/index.mjs', 'packs/hello/test/hello.test.mjs']);
    expect(tutorial.filter((step) => step.kind === 'command')).to.have.length.greaterThan(5);
  });

  for (const step of tutorial) {
    if (step.kind === 'file') {
      it(`line ${step.line}: writes ${step.path}`, () => {
        const target = join(base, step.path);
        mkdirSync(dirname(target), { recursive: true });
        writeFileSync(target, step.body);
      });
      continue;
    }
    it(`line ${step.line}: ${step.source}`, function () {
      this.timeout(60_000);
      const [command, ...args] = step.words;
      const run = (file: string, argv: string[]) => spawnSync(file, argv, { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
      let result: { status: number | null; stdout: string; stderr: string } = { status: 0, stdout: '', stderr: '' };
      if (command === 'mkdir' && args[0] === '-p' && args.length === 2) mkdirSync(join(cwd, args[1]!), { recursive: true });
      else if (command === 'cd' && args.length === 1) cwd = resolve(cwd, args[0]!);
      else if (command === 'npm' && args[0] === 'install') installDependencies(cwd, args.length > 1 ? args.slice(1) : undefined);
      else if (command === 'npm' && args[0] === 'test' && args.length === 1) result = run('npm', ['test']);
      else if (command === 'node') result = run(process.execPath, args);
      else if (command === 'npx' && args[0] === 'agentctl') result = run(process.execPath, [join(cwd, 'node_modules', '.bin', 'agentctl'), ...args.slice(1)]);
      else expect.fail(`the tutorial uses a command this test does not run: ${step.source}`);
      expect(result.status, `${step.source}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`).to.equal(step.exitCode);
      outputs.set(step.source, `${result.stdout}${result.stderr}`);
    });
  }

  it('ran the pack\'s tests, and the workflow with the pack', () => {
    expect(outputs.get('npm test')).to.match(/6 passing/);
    const success = JSON.parse(outputs.get('npx agentctl run greet.yaml --input who=Grace --output json')!) as { data: { state: string; output: unknown } };
    expect([success.data.state, success.data.output]).to.deep.equal(['succeeded', { greeting: 'Hello, Grace!' }]);
    const blank = JSON.parse(outputs.get("npx agentctl run greet.yaml --input who=' ' --output json  # exit 4")!) as { error: { exitCode: number }; diagnostics: { code: string; plugin?: string; hook?: string }[] };
    expect(blank.error.exitCode).to.equal(4);
    expect(blank.diagnostics[0]).to.include({ code: 'AGENTCTL_PACK_HELLO_E_BLANK_NAME', plugin: 'agentctl-pack-hello', hook: 'dispatch:hello.greet' });
    const plugins = JSON.parse(outputs.get('npx agentctl plugins list --output json')!) as { data: { plugins: { name: string; source: string; actionKinds: string[] }[] } };
    expect(plugins.data.plugins.find((plugin) => plugin.name === 'agentctl-pack-hello')).to.deep.include({ source: 'path', actionKinds: ['hello.greet'] });
  });

  it('wrote exactly the files of packs/hello (its development dependency on @agentctl/cli aside)', () => {
    for (const step of tutorial) {
      if (step.kind !== 'file' || !step.path.startsWith('packs/hello/')) continue;
      const inRepository = readFileSync(join(ROOT, step.path), 'utf8');
      if (!step.path.endsWith('package.json')) {
        expect(inRepository, step.path).to.equal(step.body);
        continue;
      }
      // The repository's pack is a workspace of the CLI's own repository, which cannot list the CLI (see the doc).
      const written = JSON.parse(step.body) as { devDependencies: Record<string, string> };
      expect(written.devDependencies['@agentctl/cli']).to.equal('0.1.0');
      delete written.devDependencies['@agentctl/cli'];
      expect(JSON.parse(inRepository), step.path).to.deep.equal(written);
    }
  });
});
