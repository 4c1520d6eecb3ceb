// `npm run image`: builds agentctl's image from the local bases (bases.mjs) with Podman and tags it agentctl:local;
// copies it into Docker when Docker answers (`podman save | docker load`: the same image, the same id, built once);
// writes the SBOM (sbom.mjs). The container acceptance gate calls buildImage().
//
// Podman builds with --pull=never (nothing can be pulled here; the bases are passed by id) and, when this machine
// has a CA bundle, passes it as the build secret `agentctl_ca`: the install steps use it to reach the npm registry
// through a TLS-intercepting network, and it never becomes an argument, layer or history entry of the image.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBases } from './bases.mjs';
import { assertContainerfile } from './containerfile.mjs';
import { answers, engine, engineEnv, imageId, pipe, stream } from './engine.mjs';
import { makeSbom } from './sbom.mjs';
import { webAddress } from './source-label.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const IMAGE = 'agentctl:local';
/** The machine's CA bundle; on the project's machines it holds the intercepting proxy's CA. */
export const CA_BUNDLE = process.env.AGENTCTL_BUILD_CA ?? '/etc/ssl/certs/ca-certificates.crt';

function git(args) {
  try {
    return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

/** The OCI labels' values that come from the checkout: version, revision (marked when uncommitted), source. */
export function labelValues() {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const head = git(['rev-parse', 'HEAD']);
  const dirty = head !== '' && git(['status', '--porcelain', '--untracked-files=no']) !== '';
  const repository = typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url;
  const source = webAddress(repository ?? git(['remote', 'get-url', 'origin'])) ?? `https://www.npmjs.com/package/${pkg.name}`;
  return { VERSION: pkg.version, REVISION: head === '' ? 'unknown' : `${head}${dirty ? '-dirty' : ''}`, SOURCE: source };
}

/** The `podman build` arguments for bases given by id. */
export function buildArguments({ builder, runtime, tag = IMAGE, secret = existsSync(CA_BUNDLE) ? CA_BUNDLE : null }) {
  const args = ['build', '--pull=never', '--layers', '--file', join(ROOT, 'Containerfile'), '--tag', tag,
    '--build-arg', `BUILDER_IMAGE=${builder}`, '--build-arg', `RUNTIME_IMAGE=${runtime}`];
  for (const [name, value] of Object.entries(labelValues())) args.push('--build-arg', `${name}=${value}`);
  if (secret !== null) args.push('--secret', `id=agentctl_ca,src=${secret}`);
  args.push(ROOT);
  return args;
}

/**
 * Builds the image and returns what the gate needs.
 * @param {{ engines?: string[], quiet?: boolean, sbom?: boolean }} [options] engines to tag it in (Podman always
 *   builds; Docker receives it when listed and answering); quiet collects the build's output instead of printing it
 * @returns {Promise<{ image: string, id: string, engines: string[], sizeBytes: number, seconds: number,
 *   bases: { builder: string, runtime: string, made: boolean, seconds: number }, sbom: object | null }>}
 */
export async function buildImage({ engines = ['podman', 'docker'], quiet = false, sbom = true } = {}) {
  const started = Date.now();
  assertContainerfile(join(ROOT, 'Containerfile'));
  const bases = await ensureBases({ quiet });
  await stream('podman', buildArguments(bases), { quiet });
  const id = imageId('podman', IMAGE);
  const built = ['podman'];
  if (engines.includes('docker') && answers('docker')) {
    if (imageId('docker', IMAGE) !== id) {
      await pipe(['podman', ['save', '--format', 'docker-archive', IMAGE]], ['docker', ['load', '--quiet'], engineEnv('docker')]);
      engine('docker', ['tag', id, IMAGE]);
    }
    const dockerId = imageId('docker', IMAGE);
    if (dockerId !== id) throw new Error(`docker holds ${IMAGE} as ${dockerId}, podman as ${id}`);
    built.push('docker');
  }
  const sizeBytes = Number(engine('podman', ['image', 'inspect', '--format', '{{.Size}}', IMAGE]).trim());
  const seconds = (Date.now() - started) / 1000;
  const document = sbom ? await makeSbom({ engine: 'podman', image: IMAGE, quiet }) : null;
  return { image: IMAGE, id, engines: built, sizeBytes, seconds, bases: { builder: bases.builder, runtime: bases.runtime,
    made: bases.made, seconds: bases.seconds }, sbom: document };
}

/** The image's size as a registry would store it: its layers gzip-compressed (what `podman save | gzip` holds). */
export async function compressedSize(image = IMAGE) {
  const out = await pipe(['podman', ['save', '--format', 'docker-archive', image]], ['sh', ['-c', 'gzip -6 | wc -c']]);
  return Number(out.trim());
}

const mib = (bytes) => `${(bytes / 1048576).toFixed(1)} MiB`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await buildImage();
  const compressed = await compressedSize(result.image);
  process.stdout.write([
    `image: ${result.image} ${result.id} in ${result.engines.join(' and ')}`,
    `size: ${mib(result.sizeBytes)} uncompressed (podman image inspect), ${mib(compressed)} compressed (podman save | gzip)`,
    `build: ${result.seconds.toFixed(1)} s (bases ${result.bases.made ? 'made' : 'reused'} in ${result.bases.seconds.toFixed(1)} s)`,
    result.sbom ? `sbom: ${result.sbom.path}: ${result.sbom.components} components (CycloneDX ${result.sbom.specVersion})` : '',
  ].filter(Boolean).join('\n') + '\n');
}
