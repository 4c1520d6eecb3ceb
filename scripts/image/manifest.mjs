// Builder step of the Containerfile: the manifest of the image's install folder (/opt/agentctl). The CLI depends on
// its exact SDK, a package of its own; installing the packed tarballs of both as dependencies of one folder installs
// them as a project that uses agentctl does, with the SDK the CLI needs found beside it instead of in a registry.
// The manifest is named agentctl, at the CLI's version: the image's application, as its SBOM names it.
//   node scripts/image/manifest.mjs /pack > /opt/agentctl/package.json
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const folder = resolve(process.argv[2] ?? '');
const tarballs = readdirSync(folder).filter((name) => name.endsWith('.tgz'));
const cli = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
const dependencies = {};
for (const tarball of tarballs) {
  // npm pack names a tarball after its package: @agentctl/cli@0.1.0 → agentctl-cli-0.1.0.tgz.
  const match = /^agentctl-(.+)-\d+\.\d+\.\d+.*\.tgz$/.exec(tarball);
  if (!match) throw new Error(`manifest: ${tarball} is not an @agentctl package tarball`);
  dependencies[`@agentctl/${match[1]}`] = `file:${join(folder, tarball)}`;
}
if (!dependencies[cli.name]) throw new Error(`manifest: no tarball of ${cli.name} in ${folder}`);
process.stdout.write(`${JSON.stringify({ name: 'agentctl', version: cli.version, private: true, dependencies }, null, 2)}\n`);
