// `agentctl packs new`: the files it writes, the names it derives, its refusals (each leaving the folder as it was),
// `--force`, and that its templates ship: in dist/, in `npm pack`'s file list, and past the image's prune rules. The
// pack it writes is built, tested, locked and run in test/docs/plugin-authoring.test.ts (packages linked from this
// checkout) and test/install/pack-scaffold.test.ts (installed by npm).
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { baseEnv, ROOT, runCli } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome } from './helpers.js';
import { temporaryFolder } from '../../core/testing/fixtures.js';
import { SCAFFOLD_FILES } from '../../core/cli/pack-scaffold.js';
// @ts-expect-error: a JavaScript module of the image's build, without types
import { isDevPath } from '../../scripts/image/prune.mjs';

const FILES = ['.gitignore', 'README.md', 'examples/echo.yaml', 'package.json', 'src/index.ts', 'test/echo.test.ts', 'tsconfig.json'];

/** Every file below a folder, `/`-separated and sorted. */
function listing(folder: string): string[] {
  return (readdirSync(folder, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((entry) => entry.isFile() || entry.isSymbolicLink())
    .map((entry) => join(entry.parentPath, entry.name).slice(folder.length + 1))
    .sort();
}

describe('packs new: a TypeScript code pack', function () {
  this.timeout(60_000);
  let cwd = '';
  const agentctl = (...args: string[]) => runCli(args, { cwd, env: baseEnv() });
  beforeEach(() => {
    cwd = temporaryFolder('agentctl-packs-new-');
  });
  afterEach(() => rmSync(cwd, { recursive: true, force: true }));

  it('writes the pack into a folder named after it, and says what it made', () => {
    const document = outcome(agentctl('packs', 'new', '@acme/agentctl-pack-greet', '--output', 'json'), 0);
    const folder = join(cwd, 'agentctl-pack-greet');
    expect(document.kind).to.equal('PackScaffold');
    expect(document.data).to.deep.equal({
      name: '@acme/agentctl-pack-greet',
      namespace: 'greet',
      actionKinds: ['greet.echo'],
      errorCodePrefix: 'ACME_AGENTCTL_PACK_GREET_E_',
      path: folder,
      created: true,
      files: FILES,
    });
    expect(listing(folder)).to.deep.equal(FILES);
    // Nothing else in the current folder: the temporary folder the pack was written in is gone.
    expect(readdirSync(cwd)).to.deep.equal(['agentctl-pack-greet']);
    const source = readFileSync(join(folder, 'src', 'index.ts'), 'utf8');
    expect(source).to.include("plugin: '@acme/agentctl-pack-greet'").and.include("name: 'greet.echo'").and.include('ACME_AGENTCTL_PACK_GREET_E_BLANK_MESSAGE:').and.not.match(/%\{/);
    expect(readFileSync(join(folder, 'examples', 'echo.yaml'), 'utf8')).to.include('kind: greet.echo');
    expect(readFileSync(join(folder, 'README.md'), 'utf8')).to.include('packs/agentctl-pack-greet/examples/echo.yaml');
  });

  it('schema --kind PackScaffold publishes the document the command prints (each printed one is checked against it)', () => {
    const schema = outcome(agentctl('schema', '--kind', 'PackScaffold', '--output', 'json'), 0).data;
    expect(schema.properties.data.required).to.deep.equal(['name', 'namespace', 'actionKinds', 'errorCodePrefix', 'path', 'created', 'files']);
  });

  it("pins the package's development tools to this agentctl's versions, and makes agentctl and its SDK peers", () => {
    outcome(agentctl('packs', 'new', 'greeter', '--output', 'json'), 0);
    const manifest = JSON.parse(readFileSync(join(cwd, 'greeter', 'package.json'), 'utf8'));
    const own = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect(manifest).to.deep.include({ name: 'greeter', type: 'module', files: ['dist/src', 'README.md'], exports: { '.': { types: './dist/src/index.d.ts', default: './dist/src/index.js' } } });
    expect(Object.keys(manifest.scripts)).to.have.members(['build', 'test', 'prepare']);
    expect(manifest.peerDependencies).to.deep.equal({ '@agentctl/cli': `^${own.version}`, '@agentctl/sdk': `^${own.version}` });
    expect(manifest.peerDependenciesMeta).to.deep.equal({ '@agentctl/cli': { optional: true } });
    expect(manifest.devDependencies).to.deep.equal({
      '@agentctl/cli': own.version,
      '@agentctl/sdk': own.version,
      '@agentctl/testing': own.version,
      '@types/mocha': own.devDependencies['@types/mocha'],
      '@types/node': own.devDependencies['@types/node'],
      mocha: own.devDependencies.mocha,
      typescript: own.devDependencies.typescript,
    });
    expect(manifest.dependencies).to.equal(undefined);
    // An unscoped name is its own namespace.
    expect(readFileSync(join(cwd, 'greeter', 'src', 'index.ts'), 'utf8')).to.include("name: 'greeter.echo'").and.include('GREETER_E_BLANK_MESSAGE');
  });

  it('prints a summary and the next steps in human output; --dir chooses the folder', () => {
    const result = agentctl('packs', 'new', 'agentctl-pack-deploy', '--dir', 'packs/deploy');
    expect(result.status, result.stderr).to.equal(0);
    expect(result.stdout).to.include('created pack agentctl-pack-deploy in packs/deploy: action kind deploy.echo').and.include('  cd packs/deploy\n  npm install\n  npm test');
    expect(result.stderr).to.equal('');
    expect(listing(join(cwd, 'packs', 'deploy'))).to.deep.equal(FILES);
  });

  it('--dir . writes into the current folder when it is empty, keeping that folder', () => {
    const document = outcome(agentctl('packs', 'new', 'greeter', '--dir', '.', '--output', 'json'), 0);
    expect(document.data).to.include({ path: cwd, created: true });
    expect(listing(cwd)).to.deep.equal(FILES);
  });

  it('takes an absolute --dir as given, and an empty folder as new', () => {
    const elsewhere = temporaryFolder('agentctl-packs-new-elsewhere-');
    try {
      const document = outcome(agentctl('packs', 'new', 'greeter', '--dir', elsewhere, '--output', 'json'), 0);
      expect(document.data).to.include({ path: elsewhere, created: true });
      expect(listing(elsewhere)).to.deep.equal(FILES);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  for (const [name, reason] of [
    ['Greeter', 'capital letters'],
    ['.greeter', 'period'],
    ['_greeter', 'underscore'],
    ['my pack', 'URL-friendly'],
    ['node_modules', 'not a valid package name'],
    ['fs', 'core module'],
    ['a'.repeat(215), '214'],
    ['@acme/agentctl-pack-', 'namespace'],
    ['@acme/~deploy', 'special characters'],
    ['../escape', 'URL-friendly'],
    ['9lives', 'error codes would start with 9LIVES_E_'],
    ['agentctl', 'error codes would start with AGENTCTL_E_'],
  ] as const) {
    it(`refuses the name ${JSON.stringify(name.length > 40 ? `${name.slice(0, 10)}…` : name)} (${reason}), writing nothing`, () => {
      const document = errorDocument(agentctl('packs', 'new', name, '--output', 'json'), 2);
      expect(diagnosticWithCode(document, 'AGENTCTL_E_PACK_NAME_INVALID').message).to.include(reason);
      expect(readdirSync(cwd)).to.deep.equal([]);
    });
  }

  it('refuses a folder that is not empty, or not a folder, and leaves it as it was', () => {
    mkdirSync(join(cwd, 'greeter'));
    writeFileSync(join(cwd, 'greeter', 'notes.txt'), 'mine\n');
    writeFileSync(join(cwd, 'file'), 'a file\n');
    const busy = errorDocument(agentctl('packs', 'new', 'greeter', '--output', 'json'), 2);
    expect(diagnosticWithCode(busy, 'AGENTCTL_E_SCAFFOLD_TARGET').message).to.include('is not empty');
    expect(listing(join(cwd, 'greeter'))).to.deep.equal(['notes.txt']);
    const file = errorDocument(agentctl('packs', 'new', 'greeter', '--dir', 'file', '--output', 'json'), 2);
    expect(diagnosticWithCode(file, 'AGENTCTL_E_SCAFFOLD_TARGET').message).to.include('is not a folder');
    symlinkSync(join(cwd, 'greeter'), join(cwd, 'link'));
    const link = errorDocument(agentctl('packs', 'new', 'greeter', '--dir', 'link', '--force', '--output', 'json'), 2);
    expect(diagnosticWithCode(link, 'AGENTCTL_E_SCAFFOLD_TARGET').message).to.include('is not a folder');
    const under = errorDocument(agentctl('packs', 'new', 'greeter', '--dir', 'file/greeter', '--output', 'json'), 2);
    expect(diagnosticWithCode(under, 'AGENTCTL_E_SCAFFOLD_TARGET').message).to.include(`${join(cwd, 'file')} is not a folder`);
    expect(readdirSync(cwd).sort()).to.deep.equal(['file', 'greeter', 'link']);
    expect(readFileSync(join(cwd, 'file'), 'utf8')).to.equal('a file\n');
  });

  it('--force writes the pack into a folder that holds other files: same names replaced, the others kept', () => {
    mkdirSync(join(cwd, 'greeter', 'src'), { recursive: true });
    writeFileSync(join(cwd, 'greeter', 'notes.txt'), 'mine\n');
    writeFileSync(join(cwd, 'greeter', 'src', 'index.ts'), 'old\n');
    const document = outcome(agentctl('packs', 'new', 'greeter', '--force', '--output', 'json'), 0);
    expect(document.data.created).to.equal(false);
    expect(listing(join(cwd, 'greeter'))).to.deep.equal([...FILES, 'notes.txt'].sort());
    expect(readFileSync(join(cwd, 'greeter', 'notes.txt'), 'utf8')).to.equal('mine\n');
    expect(readFileSync(join(cwd, 'greeter', 'src', 'index.ts'), 'utf8')).to.include("name: 'greeter.echo'");
  });

  it('--force refuses, before writing anything, a folder or file where the pack puts a file or folder', () => {
    mkdirSync(join(cwd, 'greeter', 'README.md'), { recursive: true });
    writeFileSync(join(cwd, 'greeter', 'test'), 'a file where the tests go\n');
    const document = errorDocument(agentctl('packs', 'new', 'greeter', '--force', '--output', 'json'), 2);
    expect(diagnosticWithCode(document, 'AGENTCTL_E_SCAFFOLD_TARGET').message).to.match(/holds (README\.md|test)/);
    expect(listing(join(cwd, 'greeter'))).to.deep.equal(['test']);
    expect(readdirSync(join(cwd, 'greeter', 'README.md'))).to.deep.equal([]);
  });

  it('refuses a relative --dir that leads out of the current folder, an empty one and the root', () => {
    for (const dir of ['../greeter', 'packs/../../greeter', '', '/']) {
      const document = errorDocument(agentctl('packs', 'new', 'greeter', '--dir', dir, '--output', 'json'), 2);
      diagnosticWithCode(document, 'AGENTCTL_E_SCAFFOLD_PATH_ESCAPE');
    }
    expect(readdirSync(cwd)).to.deep.equal([]);
  });

  it('loads no pack of the project config: a broken one does not stop it', () => {
    writeFileSync(join(cwd, 'agentctl.config.json'), `${JSON.stringify({ packs: ['./missing-pack'] })}\n`);
    expect(agentctl('plugins', 'list').status).to.equal(2);
    outcome(agentctl('packs', 'new', 'greeter', '--output', 'json'), 0);
    expect(existsSync(join(cwd, 'greeter', 'package.json'))).to.equal(true);
  });
});

describe('packs new: the templates ship with the CLI', function () {
  this.timeout(120_000);

  it('dist/ holds a copy of each template, byte for byte', () => {
    for (const template of Object.values(SCAFFOLD_FILES)) {
      expect(readFileSync(join(ROOT, 'dist', 'core', 'cli', 'scaffold', 'pack', template), 'utf8'), template).to.equal(readFileSync(join(ROOT, 'core', 'cli', 'scaffold', 'pack', template), 'utf8'));
    }
    expect(readdirSync(join(ROOT, 'core', 'cli', 'scaffold', 'pack')).sort()).to.deep.equal(Object.values(SCAFFOLD_FILES).sort());
  });

  it("npm pack puts them in the CLI's tarball, and the image's prune keeps them", () => {
    const packed = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, npm_config_loglevel: 'error' } });
    expect(packed.status, packed.stderr).to.equal(0);
    const paths = (JSON.parse(packed.stdout) as { files: { path: string }[] }[])[0]!.files.map((file) => file.path);
    const templates = Object.values(SCAFFOLD_FILES).map((template) => `dist/core/cli/scaffold/pack/${template}`);
    expect(paths).to.include.members(templates);
    // The image installs the CLI under node_modules/@agentctl/cli and prunes what looks like development material.
    expect(templates.filter((path) => isDevPath(`node_modules/@agentctl/cli/${path}`))).to.deep.equal([]);
  });
});
