// The image's SBOM: a CycloneDX JSON document of the production dependencies the image holds, made by the
// maintained CycloneDX generator for npm (@cyclonedx/cyclonedx-npm) from the install copied out of the built image,
// so it describes exactly what runs. Validated: the generator's own schema validation, the CycloneDX library's
// strict JSON validator, agentctl as the main component at the package's version, and every package the install
// holds present among the components. Written to build/sbom.cdx.json (not committed).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Validation } from '@cyclonedx/cyclonedx-library';
import { engine } from './engine.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SBOM_PATH = join(ROOT, 'build', 'sbom.cdx.json');
const SPEC_VERSION = '1.6';
const INSTALL = '/opt/agentctl';

/** Copies the image's install (/opt/agentctl) to `target` without running the image. */
function copyInstall(engineName, image, target) {
  const container = engine(engineName, ['create', image]).trim();
  try {
    engine(engineName, ['cp', `${container}:${INSTALL}`, target]);
  } finally {
    engine(engineName, ['rm', container]);
  }
}

/** name@version of every package under a node_modules folder, nested ones included. */
function installedPackages(folder, found = new Set()) {
  const modules = join(folder, 'node_modules');
  if (!existsSync(modules)) return found;
  for (const entry of readdirSync(modules)) {
    if (entry.startsWith('.')) continue;
    const names = entry.startsWith('@') ? readdirSync(join(modules, entry)).map((name) => `${entry}/${name}`) : [entry];
    for (const name of names) {
      const manifest = join(modules, name, 'package.json');
      if (!existsSync(manifest)) continue;
      const { version } = JSON.parse(readFileSync(manifest, 'utf8'));
      found.add(`${name}@${version}`);
      installedPackages(join(modules, name), found);
    }
  }
  return found;
}

function flatten(components, into = []) {
  for (const component of components ?? []) {
    into.push(component);
    flatten(component.components, into);
  }
  return into;
}

/**
 * Throws unless the document is a complete, valid SBOM of the install: its main component is the install's manifest
 * (`agentctl` at the CLI's version), the CLI package is among its components, and so is every installed package.
 */
export async function validateSbom(text, pkg, installed, cli) {
  const bom = JSON.parse(text);
  const problems = [];
  if (bom.bomFormat !== 'CycloneDX') problems.push(`bomFormat is ${bom.bomFormat}, expected CycloneDX`);
  if (typeof bom.specVersion !== 'string' || bom.specVersion === '') problems.push('no specVersion');
  const components = flatten(bom.components);
  if (components.length === 0) problems.push('no components');
  const id = (c) => `${c?.group ? `${c.group}/` : ''}${c?.name}@${c?.version}`;
  const main = id(bom.metadata?.component);
  if (main !== `${pkg.name}@${pkg.version}`) problems.push(`metadata.component is ${main}, expected ${pkg.name}@${pkg.version}`);
  const listed = new Set(components.map(id));
  if (!listed.has(cli)) problems.push(`the CLI package ${cli} is not among the components`);
  const missing = [...installed].filter((id) => !listed.has(id));
  if (missing.length > 0) problems.push(`installed but not in the SBOM: ${missing.slice(0, 10).join(', ')}`);
  const schemaErrors = await new Validation.JsonStrictValidator(bom.specVersion).validate(text);
  if (schemaErrors !== null) problems.push(`not valid CycloneDX ${bom.specVersion}: ${JSON.stringify(schemaErrors).slice(0, 500)}`);
  if (problems.length > 0) throw new Error(`the SBOM is not valid:\n- ${problems.join('\n- ')}`);
  return { components: components.length, specVersion: bom.specVersion };
}

/**
 * Makes, validates and writes the SBOM of the image's production install.
 * @param {{ engine?: string, image?: string, output?: string, quiet?: boolean }} [options]
 * @returns {Promise<{ path: string, components: number, specVersion: string, seconds: number }>}
 */
export async function makeSbom({ engine: engineName = 'podman', image = 'agentctl:local', output = SBOM_PATH, quiet = false } = {}) {
  const started = Date.now();
  const work = mkdtempSync(join(tmpdir(), 'agentctl-sbom-'));
  try {
    const install = join(work, 'install');
    copyInstall(engineName, image, install);
    // The install is a project folder: its manifest names agentctl at the CLI's version (scripts/image/manifest.mjs).
    const folder = install;
    const pkg = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
    const cliPackage = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    // The generator's command line (its package exports only its API module, beside which bin/ sits).
    const generator = join(dirname(createRequire(import.meta.url).resolve('@cyclonedx/cyclonedx-npm')), 'bin', 'cyclonedx-npm-cli.js');
    const file = join(work, 'sbom.cdx.json');
    // npm ls's complaints (e.g. about the CLI's own `overrides`, which npm applies only to the project it installs
    // into) are not fatal; the completeness check below compares the SBOM with what the install really holds.
    const result = spawnSync(process.execPath, [generator, '--omit', 'dev', '--ignore-npm-errors', '--validate',
      '--output-reproducible', '--spec-version', SPEC_VERSION, '--mc-type', 'application', '--output-file', file,
      'package.json'], { cwd: folder, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    if (result.status !== 0) throw new Error(`cyclonedx-npm exited ${result.status}: ${result.stderr.slice(-2000)}`);
    const text = readFileSync(file, 'utf8');
    const { components, specVersion } = await validateSbom(text, pkg, installedPackages(folder), `${cliPackage.name}@${cliPackage.version}`);
    mkdirSync(dirname(output), { recursive: true });
    writeFileSync(output, text);
    if (!quiet) process.stderr.write(`sbom: ${output}: CycloneDX ${specVersion}, ${components} components, valid\n`);
    return { path: output, components, specVersion, seconds: (Date.now() - started) / 1000 };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const image = process.argv[2] ?? 'agentctl:local';
  const sbom = await makeSbom({ image });
  process.stdout.write(`${JSON.stringify(sbom)}\n`);
}
