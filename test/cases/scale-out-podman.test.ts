// The scale-out path under a real engine, as `npm run acceptance:scaleout` runs it but with 2 shards and the current
// build: examples/scale-out.yaml emitted as Kubernetes Jobs, the Jobs run by the Podman Job runner, the gathered run
// held against a single-machine run. The pods run the checkout's dist/ (a dev image: the test node image with the
// checkout mounted at /opt/agentctl), so the test needs no release image build.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { devImage } from '../../scripts/acceptance/scaleout/dev-image.mjs';
import { scaleOutJourney } from '../../scripts/acceptance/scaleout/journey.mjs';
import { ROOT } from '../support/cli.js';
import { ENGINES_SKIP_REASON, testEngines } from '../support/engines.js';

const WORKFLOW = join(ROOT, 'examples', 'scale-out.yaml');

describe('scale-out under Podman: emitted Jobs, 2 shards, gathered', function () {
  this.timeout(240_000);
  const engines = testEngines();
  if (!engines) {
    it(`is pending: ${ENGINES_SKIP_REASON}`);
    return;
  }
  let root: string;
  let dev: ReturnType<typeof devImage>;
  before(() => {
    dev = devImage(engines.podman.images.node, ROOT);
  });
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'agentctl-scaleout-'));
    chmodSync(root, 0o755);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('gathers the same output as one machine, each effect once, and inspect and report read the gathered run', async () => {
    const result = await scaleOutJourney({ checkout: ROOT, workflow: WORKFLOW, root, image: dev.image, shards: 2, extraMounts: [dev.mount] });
    expect(result.gathered.data.output).to.deep.equal(result.reference.data.output);
    expect(result.shards.pods.map((pod) => [pod.index, pod.exitCode]).sort()).to.deep.equal([[0, 0], [1, 0]]);
    expect(result.logged).to.have.length(10);
    expect(Object.values(result.counts).filter((entry) => entry.operation === 'process.exec').map((entry) => entry.count)).to.deep.equal(Array(10).fill(1));
  });

  it('converges when one shard\'s pod is killed mid-run and that shard runs again: no effect twice', async () => {
    const result = await scaleOutJourney({ checkout: ROOT, workflow: WORKFLOW, root, image: dev.image, shards: 2, kill: 1, extraMounts: [dev.mount] });
    expect(result.gathered.data.output).to.deep.equal(result.reference.data.output);
    const shard1 = result.shards.pods.filter((pod) => pod.index === 1);
    expect(shard1[0]).to.include({ exitCode: 137, disrupted: true });
    expect(shard1.at(-1)).to.include({ exitCode: 0, outcome: 'succeeded' });
    expect(result.shards.killedAfterEffects).to.be.a('number').above(0);
    expect([...result.logged].sort()).to.have.length(10);
  });
});
