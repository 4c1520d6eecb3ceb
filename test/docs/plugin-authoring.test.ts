// docs/plugin-authoring.md starts a pack with `agentctl packs new`; this runs it as written. In one temporary folder,
// in document order, each ```… file=PATH block is written to PATH, each ```… generated=PATH block must equal the file
// PATH as the commands before it left it (what `packs new` wrote), and each line of a ```sh block is run. The commands
// a tutorial may use are few and each is run for real, with one exception: the tests never reach a package registry,
// so `npm install [names]` links the packages from this checkout as npm would install them (test/support/packs.ts).
// A trailing `# exit N` gives the expected exit code (default 0). The generated blocks must show every file of the
// pack but its README and .gitignore.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { temporaryFolder } from '../../core/testing/fixtures.js';
import { SCAFFOLD_FILES } from '../../core/cli/pack-scaffold.js';
import { ROOT } from '../support/cli.js';
import { installDependencies } from '../support/packs.js';
import { shellWords } from '../support/shell-words.js';

const DOC = join(ROOT, 'docs', 'plugin-authoring.md');

type FileBlock = { readonly path: string; readonly body: string; readonly line: number };
type Step = (FileBlock & { readonly kind: 'file' }) | (FileBlock & { readonly kind: 'generated' }) | { readonly kind: 'command'; readonly words: string[]; readonly exitCode: number; readonly source: string; readonly line: number };


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
    const generated = /(?:^|\s)generated=(\S+)/.exec(open[2]!)?.[1];
    if (generated) found.push({ kind: 'generated', path: generated, body: `${body.join('\n')}\n`, line: start });
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

  it('makes the pack with packs new, shows its files, and runs commands', () => {
    const commands = tutorial.filter((step) => step.kind === 'command');
    expect(commands.map((step) => step.source)).to.include('npx agentctl packs new @acme/agentctl-pack-greet --dir packs/greet');
    expect(commands).to.have.length.greaterThan(10);
    // Every file of the pack is shown as generated, but the README and .gitignore, which the text names.
    const shown = tutorial.flatMap((step) => (step.kind === 'generated' ? [step.path] : []));
    expect(shown.sort()).to.deep.equal(Object.keys(SCAFFOLD_FILES).filter((path) => !['README.md', '.gitignore'].includes(path)).map((path) => `packs/greet/${path}`).sort());
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
    if (step.kind === 'generated') {
      it(`line ${step.line}: shows ${step.path} as packs new wrote it`, () => {
        expect(readFileSync(join(base, step.path), 'utf8'), step.path).to.equal(step.body);
      });
      continue;
    }
    it(`line ${step.line}: ${step.source}`, function () {
      this.timeout(120_000);
      const [command, ...args] = step.words;
      const run = (file: string, argv: string[]) => spawnSync(file, argv, { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
      let result: { status: number | null; stdout: string; stderr: string } = { status: 0, stdout: '', stderr: '' };
      if (command === 'mkdir' && args[0] === '-p' && args.length === 2) mkdirSync(join(cwd, args[1]!), { recursive: true });
      else if (command === 'cd' && args.length === 1) cwd = resolve(cwd, args[0]!);
      else if (command === 'npm' && args[0] === 'install') {
        installDependencies(cwd, args.length > 1 ? args.slice(1) : undefined);
        // npm runs a package's `prepare` after installing its own dependencies.
        if (args.length === 1 && JSON.parse(readFileSync(join(cwd, 'package.json'), 'utf8')).scripts?.prepare) result = run('npm', ['run', 'prepare']);
      } else if (command === 'npm' && ((args[0] === 'test' && args.length === 1) || (args[0] === 'run' && args.length === 2))) result = run('npm', args);
      else if (command === 'node') result = run(process.execPath, args);
      else if (command === 'npx' && args[0] === 'agentctl') result = run(process.execPath, [join(cwd, 'node_modules', '.bin', 'agentctl'), ...args.slice(1)]);
      else expect.fail(`the tutorial uses a command this test does not run: ${step.source}`);
      expect(result.status, `${step.source}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`).to.equal(step.exitCode);
      outputs.set(step.source, `${result.stdout}${result.stderr}`);
    });
  }

  it("ran the pack's tests, and the workflow with the pack, locked too", () => {
    expect(outputs.get('npm test')).to.match(/7 passing/);
    const workflow = 'npx agentctl run packs/greet/examples/echo.yaml --config agentctl.config.json';
    const expected = { message: 'Hi', sha256: '3639efcd08abb273b1619e82e78c29a7df02c1051b1820e99fc395dcaa3326b8' };
    for (const source of [`${workflow} --input message=Hi --output json`, `${workflow} --input message=Hi --locked --output json`]) {
      const success = JSON.parse(outputs.get(source)!) as { data: { state: string; output: unknown } };
      expect([success.data.state, success.data.output], source).to.deep.equal(['succeeded', expected]);
    }
    const blank = JSON.parse(outputs.get(`${workflow} --input message=' ' --output json  # exit 4`)!) as { error: { exitCode: number }; diagnostics: { code: string; plugin?: string; hook?: string }[] };
    expect(blank.error.exitCode).to.equal(4);
    expect(blank.diagnostics[0]).to.include({ code: 'ACME_AGENTCTL_PACK_GREET_E_BLANK_MESSAGE', plugin: '@acme/agentctl-pack-greet', hook: 'dispatch:greet.echo' });
    expect(outputs.get('npx agentctl check packs/greet/examples/echo.yaml  # exit 2')).to.include('AGENTCTL_E_UNKNOWN_ACTION_KIND');
    const plugins = JSON.parse(outputs.get('npx agentctl plugins list --output json')!) as { data: { plugins: { name: string; source: string; actionKinds: string[] }[] } };
    expect(plugins.data.plugins.find((plugin) => plugin.name === '@acme/agentctl-pack-greet')).to.deep.include({ source: 'path', actionKinds: ['greet.echo'] });
    expect(outputs.get('npx agentctl packs lock')).to.include('locked 1 pack(s)');
  });
});
