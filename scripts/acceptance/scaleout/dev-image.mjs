// An image of the checkout's own build for the scale-out tests, made in seconds: the test `node` image (busybox and
// this machine's Node, scripts/test-engines.sh) with agentctl's entrypoint, user and workdir, the checkout mounted at
// /opt/agentctl by the cluster (`extraMounts`). The release image (`npm run image`) is what the acceptance gate runs;
// this one lets a test exercise the current `dist/` without a seven-minute build.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const DEV_IMAGE = 'localhost/agentctl-test/cli-dev:1';
export const DEV_MOUNT_TARGET = '/opt/agentctl';

/**
 * Builds (or finds) the image on top of `nodeImage` (an id) and returns its reference and the mount it needs.
 * @param {string} nodeImage
 * @param {string} checkout the folder holding bin/agentctl.js, dist/ and node_modules/
 */
export function devImage(nodeImage, checkout) {
  const reference = `${DEV_IMAGE.replace(/:1$/, '')}:${nodeImage.slice(7, 19)}`;
  const found = spawnSync('podman', ['image', 'exists', reference]);
  if (found.status !== 0) {
    const context = mkdtempSync(join(tmpdir(), 'agentctl-dev-image-'));
    try {
      writeFileSync(join(context, 'Containerfile'), [
        `FROM ${nodeImage}`,
        'USER 65532:65532',
        'WORKDIR /workspace',
        `ENTRYPOINT ["/usr/bin/node", "${DEV_MOUNT_TARGET}/bin/agentctl.js"]`,
        '',
      ].join('\n'));
      const built = spawnSync('podman', ['build', '--pull=never', '--network', 'none', '--tag', reference, context], { encoding: 'utf8' });
      if (built.status !== 0) throw new Error(`podman build of ${reference} failed: ${built.stderr.slice(-1000)}`);
    } finally {
      rmSync(context, { recursive: true, force: true });
    }
  }
  return { image: reference, mount: { source: checkout, target: DEV_MOUNT_TARGET, readOnly: true } };
}
