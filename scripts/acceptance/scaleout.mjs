#!/usr/bin/env node
// The scale-out acceptance gate (`npm run acceptance:scaleout`): builds agentctl's image as the container gate does (or
// reuses it), emits examples/scale-out.yaml as Kubernetes Jobs (`plan --emit k8s-indexed-job --shards 4`), runs the
// three Jobs with the Podman Job runner (scaleout/job-runner.mjs; the shards several at once), and checks the gathered
// run against a single-machine run: the same output, every fan-out effect exactly once, `inspect` and `report` of the
// gathered run. Then again with one shard's pod killed mid-run. Each step prints PASS or FAIL with its duration; the
// last line is `N passed, N failed`, and any failure makes the exit status 1.
//
//   node scripts/acceptance/scaleout.mjs [--image REF] [--shards N] [--kill I] [--keep]
//
// --image runs an image already built instead of building one; --shards (default 4) and --kill (the shard index
// killed in the second journey, default 1) shape the journeys; --keep leaves their folders.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from './context.mjs';
import { inJourneyRoot, runGate, seconds, stepLog } from './steps.mjs';
import { scaleOutJourney } from './scaleout/journey.mjs';

const { values: options } = parseArgs({
  options: {
    image: { type: 'string' },
    shards: { type: 'string', default: '4' },
    kill: { type: 'string', default: '1' },
    keep: { type: 'boolean', default: false },
  },
});
const shards = Number(options.shards);
const kill = Number(options.kill);
if (!Number.isInteger(shards) || shards < 2 || !Number.isInteger(kill) || kill < 0 || kill >= shards) {
  process.stderr.write('--shards must be an integer of at least 2 and --kill an index below it\n');
  process.exit(2);
}

const log = stepLog((line) => process.stdout.write(`${line}\n`));
const started = performance.now();
const WORKFLOW = join(ROOT, 'examples', 'scale-out.yaml');

/** Runs a command with its output on stderr (stdout is the gate's own report); rejects on a non-zero exit. */
function shown(command, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 2, 2] });
    child.on('error', reject);
    child.on('close', (status) => (status === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited ${status}`))));
  });
}

/** Prints a journey's pod lines under its step, indented. */
const detail = (text) => process.stdout.write(`${text.replace(/^/gm, '      ')}\n`);

async function main() {
  if (!(await log.step('engines: installed and started (scripts/test-engines.sh)', () => shown('bash', ['scripts/test-engines.sh'])))) return;
  let image = options.image;
  if (image === undefined) {
    const built = await log.step('image: built from the local bases and tagged (npm run image)', async () => {
      const { buildImage } = await import('../image/build.mjs');
      const result = await buildImage({ quiet: true });
      image = result.image;
      detail(`${result.image} ${result.id}: built in ${result.seconds.toFixed(1)} s`);
    });
    if (!built) return;
  } else {
    process.stdout.write(`using the image ${image} (--image): not built\n`);
  }
  await inJourneyRoot('agentctl-scaleout-', options.keep, async (root) => {
    chmodSync(root, 0o755);
    const journey = (name, extra) => log.step(name, async () => {
      const folder = mkdtempSync(join(root, 'journey-'));
      chmodSync(folder, 0o755);
      const lines = [];
      const result = await scaleOutJourney({ checkout: ROOT, workflow: WORKFLOW, root: folder, image, shards, log: (line) => lines.push(line), ...extra });
      detail(lines.join('\n'));
      detail(`gathered run ${result.gathered.data.runId}: output equal to the single-machine run's; ${result.logged.length} effects, each once`);
    });
    await journey(`examples/scale-out.yaml in ${shards} shards (prepare, an Indexed Job of ${shards}, gather): same output as one machine, each effect once`);
    await journey(`the same with shard ${kill}'s pod killed mid-run and that shard run again: same output, no effect twice`, { kill });
  });
}

await runGate(log, main, () => seconds(performance.now() - started));
