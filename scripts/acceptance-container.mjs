#!/usr/bin/env node
// The container acceptance gate (`npm run acceptance:container`): makes the engines ready, builds agentctl's image
// from the local bases, runs the image's own checks, then every credential-free journey of the product in containers
// of that image exactly as CI runs it — the run contract's flags and four mounts (scripts/image/contract.mjs), fresh
// host folders per journey, `--db /state/...`, `--output json`, one strictly read document per command — on Podman,
// and on Docker when it answers. Each step prints PASS or FAIL with its duration; the last line is `N passed, N
// failed`, and any failure makes the exit status 1.
//
//   node scripts/acceptance-container.mjs [--image REF] [--engine podman|docker]... [--journey N]... [--serial] [--keep]
//
// --image uses an image already built (tagged in every engine used) instead of building one, to iterate on the
// journeys; --engine and --journey (a journey's number) limit what runs; --serial runs one engine's steps after the
// other's instead of side by side; --keep leaves the journeys' host folders.
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { journeyContext, ROOT } from './acceptance/context.mjs';
import { loadSchemas } from './acceptance/documents.mjs';
import { imageRunner } from './acceptance/engine.mjs';
import { answers } from './image/engine.mjs';
import { approvalAcrossContainers, compensation, recoveryFromState } from './acceptance/journeys-recovery.mjs';
import { engineStop, hostContainerIsolation, refusals, vendoredPack } from './acceptance/journeys-edges.mjs';
import { telemetry } from './acceptance/journeys-telemetry.mjs';
import { mockToolAgent, parallelCommit, recordedReplay, selectiveRepair } from './acceptance/journeys-runs.mjs';
import { inJourneyRoot, runGate, seconds, stepLog } from './acceptance/steps.mjs';

/** In the order; the replay reads the run of the journey before it. */
const JOURNEYS = [
  mockToolAgent,
  recordedReplay,
  parallelCommit,
  selectiveRepair,
  approvalAcrossContainers,
  compensation,
  recoveryFromState,
  refusals,
  engineStop,
  hostContainerIsolation,
  vendoredPack,
  telemetry,
];

const { values: options } = parseArgs({
  options: {
    image: { type: 'string' },
    engine: { type: 'string', multiple: true },
    journey: { type: 'string', multiple: true },
    serial: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});

const log = stepLog((line) => process.stdout.write(`${line}\n`));
const started = performance.now();
const timings = {};

/** Runs a command with its output shown (on stderr: stdout is the gate's own report); rejects on a non-zero exit. */
function shown(command, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 2, 2] });
    child.on('error', reject);
    child.on('close', (status) => (status === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited ${status}`))));
  });
}

async function main() {
  const ready = await log.step('engines: installed and started (scripts/test-engines.sh)', () => shown('bash', ['scripts/test-engines.sh']));
  if (!ready) return;

  let built;
  const buildStarted = performance.now();
  if (options.image !== undefined) {
    const engines = [];
    for (const engine of ['podman', 'docker']) if (answers(engine)) engines.push(engine);
    built = { image: options.image, engines };
    process.stdout.write(`using the image ${options.image} (--image): not built\n`);
  } else {
    const ok = await log.step('image: built from the local bases and tagged (npm run image)', async () => {
      const { buildImage } = await import('./image/build.mjs');
      built = await buildImage({ quiet: true });
      const sbom = built.sbom ? `; SBOM ${built.sbom.components} components` : '';
      process.stdout.write(`      ${built.image} ${built.id} in ${built.engines.join(' and ')}: ${(built.sizeBytes / 1048576).toFixed(1)} MiB, built in ${built.seconds.toFixed(1)} s${sbom}\n`);
    });
    if (!ok) return;
  }
  timings.build = performance.now() - buildStarted;

  const engines = built.engines.filter((engine) => options.engine === undefined || options.engine.includes(engine));
  if (!engines.includes('docker') && (options.engine === undefined || options.engine.includes('docker'))) {
    process.stdout.write('docker does not answer: its steps are not run\n');
  }
  const schemaFor = await loadSchemas();
  let imageChecks = [];
  try {
    ({ imageChecks } = await import('./image/checks.mjs'));
  } catch (error) {
    await log.step('image: its checks load (scripts/image/checks.mjs)', () => Promise.reject(error));
  }
  const journeysStarted = performance.now();
  try {
    await inJourneyRoot('agentctl-acceptance-', options.keep, async (root) => {
      /** One engine's steps, in order: the image checks, then the journeys. */
      const engineSteps = async (engine) => {
        for (const check of imageChecks) {
          await log.step(`[${engine}] image: ${check.name}`, () => check.run({ engine, image: built.image }));
        }
        const context = journeyContext(imageRunner(engine, built.image), schemaFor, root);
        for (const [index, journey] of JOURNEYS.entries()) {
          if (options.journey !== undefined && !options.journey.includes(String(index + 1))) continue;
          await log.step(`[${engine}] ${index + 1}. ${journey.title}`, () => journey.run(context));
        }
      };
      // The engines share nothing (each journey has its own folders), and most of a step's time is a container
      // starting: the two engines' steps run side by side unless --serial.
      if (options.serial) for (const engine of engines) await engineSteps(engine);
      else await Promise.all(engines.map(engineSteps));
    });
  } finally {
    timings.journeys = performance.now() - journeysStarted;
  }
}

const parts = () => [['image build', timings.build], ['checks and journeys', timings.journeys], ['total', performance.now() - started]];
await runGate(log, main, () => parts().filter(([, ms]) => ms !== undefined).map(([name, ms]) => `${name} ${seconds(ms)}`).join(', '));
