// The image checks: what the image must and must not be, read from the built image itself (its config, its history,
// its files and every layer) and from one run under the contract's flags. Each check throws with a clear message on
// failure; the container acceptance gate runs each as a step, and `node scripts/image/checks.mjs [engine] [image]`
// runs them all.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runArguments } from './contract.mjs';
import { CA_BUNDLE } from './build.mjs';
import { engine, engineEnv, pipe } from './engine.mjs';
import { CREDENTIAL_FILES, isDevPath } from './prune.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const INSTALL = 'opt/agentctl/';
export const ENTRYPOINT = Object.freeze(['/nodejs/bin/node', '/opt/agentctl/node_modules/.bin/agentctl']);
/** The one file of the image that is a certificate bundle: Debian's public CAs (its content is checked below). */
const CA_FILE = 'etc/ssl/certs/ca-certificates.crt';
const SHELLS_AND_PACKAGE_MANAGERS = new Set(['sh', 'bash', 'dash', 'ash', 'zsh', 'busybox', 'apt', 'apt-get', 'dpkg',
  'npm', 'npx', 'npm-cli.js', 'yarn', 'pnpm']);
const pkg = () => JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

function fail(name, problems) {
  if (problems.length === 0) return;
  const shown = problems.slice(0, 20).join('\n  ');
  throw new Error(`${name}:\n  ${shown}${problems.length > 20 ? `\n  … and ${problems.length - 20} more` : ''}`);
}

function config(engineName, image) {
  return JSON.parse(engine(engineName, ['image', 'inspect', '--format', '{{json .Config}}', image]));
}

/** The image's files, as `podman export` / `docker export` of a created (never started) container lists them. */
export async function imageFiles(engineName, image) {
  const container = engine(engineName, ['create', image]).trim();
  try {
    const listing = await pipe([engineName, ['export', container], engineEnv(engineName)], ['tar', ['-tv', '--numeric-owner']]);
    return listing.split('\n').filter(Boolean).map((line) => {
      const fields = line.split(/\s+/);
      const path = fields.slice(5).join(' ').replace(/ -> .*$/, '').replace(/^\.?\//, '');
      return { mode: fields[0], path };
    });
  } finally {
    engine(engineName, ['rm', container]);
  }
}

/** Names of the repository's dev dependencies that production does not also need (per package-lock.json). */
export function devOnlyPackages() {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')).packages ?? {};
  return Object.keys(pkg().devDependencies ?? {}).filter((name) => {
    const entry = lock[`node_modules/${name}`];
    return entry === undefined || entry.dev === true || entry.devOptional === true;
  });
}

/** The PEM blocks of the build secret that this network added (not among the distribution's public CAs). */
export function localCaBlocks(secret = CA_BUNDLE, distribution = '/usr/share/ca-certificates') {
  const blocks = (text) => text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  const body = (block) => block.replace(/-----[A-Z ]+-----|\s/g, '');
  const known = new Set();
  const walk = (dir) => {
    for (const entry of existsSync(dir) ? readdirSync(dir, { withFileTypes: true }) : []) {
      if (entry.isDirectory()) walk(join(dir, entry.name));
      else if (entry.name.endsWith('.crt')) for (const b of blocks(readFileSync(join(dir, entry.name), 'utf8'))) known.add(body(b));
    }
  };
  walk(distribution);
  return blocks(readFileSync(secret, 'utf8')).filter((b) => !known.has(body(b)));
}

/** Strings that betray a CA block whatever its line wrapping: three base64 lines from its middle. */
function signatures(block) {
  const lines = block.split('\n').map((l) => l.trim()).filter((l) => /^[A-Za-z0-9+/=]{64}$/.test(l));
  const middle = Math.max(0, Math.floor(lines.length / 2) - 1);
  return lines.slice(middle, middle + 1).concat(lines.slice(middle + 1, middle + 2));
}

function walkFiles(dir, visit, rel = '') {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const relative = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) walkFiles(path, visit, relative);
    else if (entry.isFile()) visit(path, relative);
  }
}

async function configCheck({ engine: engineName, image }) {
  const { User, WorkingDir, Entrypoint, Env = [] } = config(engineName, image);
  const problems = [];
  if (User !== '65532:65532') problems.push(`user is ${JSON.stringify(User)}, expected "65532:65532"`);
  if (WorkingDir !== '/workspace') problems.push(`workdir is ${JSON.stringify(WorkingDir)}, expected "/workspace"`);
  if (JSON.stringify(Entrypoint) !== JSON.stringify(ENTRYPOINT)) {
    problems.push(`entrypoint is ${JSON.stringify(Entrypoint)}, expected ${JSON.stringify(ENTRYPOINT)}`);
  }
  for (const entry of Env) if (/CA_CERTS|cafile|secret/i.test(entry)) problems.push(`environment carries ${entry}`);
  fail('image config', problems);
}

async function labelsCheck({ engine: engineName, image }) {
  const labels = config(engineName, image).Labels ?? {};
  const { version, license } = pkg();
  const expected = {
    title: (v) => v === 'agentctl',
    description: (v) => typeof v === 'string' && v.length > 10,
    version: (v) => v === version,
    revision: (v) => /^[0-9a-f]{7,40}(-dirty)?$/.test(v ?? ''),
    source: (v) => /^https?:\/\/\S+$/.test(v ?? ''),
    licenses: (v) => v === license,
  };
  const problems = Object.entries(expected).filter(([name, ok]) => !ok(labels[`org.opencontainers.image.${name}`]))
    .map(([name]) => `label org.opencontainers.image.${name} is ${JSON.stringify(labels[`org.opencontainers.image.${name}`])}`);
  fail(`OCI labels (package ${version}, ${license})`, problems);
}

async function filesCheck({ engine: engineName, image }) {
  const files = await imageFiles(engineName, image);
  const devOnly = devOnlyPackages();
  const problems = [];
  for (const { mode, path } of files) {
    const name = path.split('/').filter(Boolean).at(-1) ?? '';
    const isDir = mode.startsWith('d');
    if (!isDir && SHELLS_AND_PACKAGE_MANAGERS.has(name)) problems.push(`shell or package manager: /${path}`);
    if (!isDir && path !== CA_FILE && (CREDENTIAL_FILES.some((p) => p.test(name)) || /(^|\/)\.(docker|ssh|aws|kube)\//.test(path))) {
      problems.push(`credential-like file: /${path}`);
    }
    if (!path.startsWith(INSTALL)) continue;
    const inside = path.slice(INSTALL.length);
    if (!isDir && isDevPath(inside)) problems.push(`development file: /${path}`);
    if (!isDir && /\.(ya?ml)$/i.test(name)) problems.push(`workflow-like YAML file: /${path}`);
    const dev = devOnly.find((dep) => inside.endsWith(`node_modules/${dep}/package.json`));
    if (dev) problems.push(`dev dependency ${dev}: /${path}`);
  }
  if (!files.some((f) => f.path === 'nodejs/bin/node')) problems.push('no /nodejs/bin/node');
  if (!files.some((f) => f.path.startsWith(INSTALL))) problems.push(`no /${INSTALL}`);
  fail(`image files (${files.length} entries)`, problems);
}

async function secretCheck({ engine: engineName, image }) {
  const secret = existsSync(CA_BUNDLE) ? readFileSync(CA_BUNDLE) : null;
  const local = secret ? localCaBlocks() : [];
  const needles = ['/run/secrets', 'agentctl_ca', 'BEGIN CERTIFICATE', 'NODE_EXTRA_CA_CERTS', 'npm_config_cafile'];
  const problems = [];
  const history = engine(engineName, ['history', '--no-trunc', '--format', '{{.CreatedBy}} {{.Comment}}', image]);
  const inspect = engine(engineName, ['image', 'inspect', image]);
  for (const needle of [...needles, ...local.flatMap(signatures)]) {
    if (history.includes(needle)) problems.push(`history mentions ${needle.slice(0, 40)}`);
    if (inspect.includes(needle)) problems.push(`image config mentions ${needle.slice(0, 40)}`);
  }
  const secretHash = secret ? createHash('sha256').update(secret).digest('hex') : null;
  const work = mkdtempSync(join(tmpdir(), 'agentctl-layers-'));
  let layers = 0;
  try {
    engine(engineName, ['save', '--output', join(work, 'image.tar'), ...(engineName === 'podman' ? ['--format', 'docker-archive'] : []), image]);
    engine('tar', ['-xf', join(work, 'image.tar'), '-C', work]);
    const [manifest] = JSON.parse(readFileSync(join(work, 'manifest.json'), 'utf8'));
    for (const layer of manifest.Layers) {
      layers += 1;
      const dir = join(work, `layer-${layers}`);
      mkdirSync(dir);
      const entries = engine('tar', ['-tf', join(work, layer)]).split('\n');
      for (const entry of entries) if (/(^|\/)run\/secrets(\/|$)/.test(entry)) problems.push(`layer ${layers} holds ${entry}`);
      engine('tar', ['-xf', join(work, layer), '-C', dir, '--no-same-owner', '--no-same-permissions', '--exclude=dev/*']);
      walkFiles(dir, (path, relative) => {
        const bytes = readFileSync(path);
        if (secretHash && bytes.length === secret.length && createHash('sha256').update(bytes).digest('hex') === secretHash) {
          problems.push(`layer ${layers}: /${relative} is the build secret`);
        }
        for (const block of local) {
          if (signatures(block).some((s) => bytes.includes(s))) problems.push(`layer ${layers}: /${relative} holds this network's CA`);
        }
      });
      rmSync(dir, { recursive: true, force: true });
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  if (layers === 0) problems.push('the saved image has no layers');
  fail(`history and ${layers} layers (${local.length} local CA certificates looked for)`, problems);
}

async function runCheck({ engine: engineName, image }) {
  const work = mkdtempSync(join(tmpdir(), 'agentctl-run-'));
  try {
    const hosts = {};
    for (const name of ['config', 'workspace', 'state', 'artifacts']) {
      hosts[name] = join(work, name);
      mkdirSync(hosts[name], { mode: 0o777 });
    }
    const args = runArguments({ image, hosts, args: ['--version'], network: 'none' });
    const out = engine(engineName, args).trim();
    const { version } = pkg();
    fail(`${engineName} ${args.join(' ')}`, out === version ? [] : [`printed ${JSON.stringify(out)}, expected ${version}`]);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The compile cache built into the image (warm-compile-cache.mjs) is found and accepted by a run under the contract's
 * flags: every module Node reports on is read from the cache, none is compiled afresh or refused, and the run works.
 */
async function compileCacheCheck({ engine: engineName, image }) {
  const work = mkdtempSync(join(tmpdir(), 'agentctl-cache-'));
  try {
    const hosts = {};
    for (const name of ['config', 'workspace', 'state', 'artifacts']) {
      hosts[name] = join(work, name);
      mkdirSync(hosts[name], { mode: 0o777 });
    }
    const args = runArguments({ image, hosts, args: ['check', '--help'], env: ['NODE_DEBUG_NATIVE=COMPILE_CACHE'], network: 'none' });
    const result = spawnSync(engineName, args, { env: { ...process.env, ...engineEnv(engineName) }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const report = result.stderr ?? '';
    const accepted = report.match(/code cache for \S+ \S+ was accepted/g)?.length ?? 0;
    const problems = result.status === 0 ? [] : [`${engineName} ${args.join(' ')} exited ${result.status ?? result.signal}`];
    if (accepted === 0) problems.push('no module was read from the compile cache');
    for (const line of report.split('\n')) if (/\[compile cache\].*(reject|fail|mismatch|no cache for)/i.test(line)) problems.push(line.trim());
    fail(`compile cache (${accepted} modules accepted)`, problems);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The checks, in order; each `run({ engine, image })` throws with a clear message when the image fails it. */
export const imageChecks = Object.freeze([
  { name: 'image config: user 65532:65532, workdir /workspace, agentctl entrypoint', run: configCheck },
  { name: 'image OCI labels: title, description, version, revision, source, licenses', run: labelsCheck },
  { name: 'image files: no shell, credential, test, fixture, workflow, source, doc or dev dependency', run: filesCheck },
  { name: 'image history and layers: no build secret, CA or /run/secrets', run: secretCheck },
  { name: 'image runs read-only as 65532 with no network (agentctl --version)', run: runCheck },
  { name: 'image compile cache: read-only, accepted by a run as 65532', run: compileCacheCheck },
]);

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [engineName = 'podman', image = 'agentctl:local'] = process.argv.slice(2);
  let failed = 0;
  for (const check of imageChecks) {
    const started = Date.now();
    try {
      await check.run({ engine: engineName, image });
      process.stdout.write(`ok   ${check.name} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
    } catch (error) {
      failed += 1;
      process.stdout.write(`FAIL ${check.name}\n  ${error.message}\n`);
    }
  }
  process.stdout.write(`${imageChecks.length - failed} passed, ${failed} failed\n`);
  process.exitCode = failed === 0 ? 0 : 1;
}
