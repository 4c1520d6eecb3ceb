// Journeys 8-11: refusals that leave no state, an engine's stop of a running run, container isolation driven by the
// host agentctl against the same engine, and a vendored pack folder run from /config.
import assert from 'node:assert/strict';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { DB, documentOf, FIXTURES, freshMounts, JSON_OUTPUT, ROOT } from './context.mjs';
import { engineEnv, execute } from './engine.mjs';
import { inspect } from './journeys-runs.mjs';

const RUN = (file) => ['run', file, '--workspace', '/workspace', ...DB];

/** The host's agentctl: the CLI this checkout built, run by this Node. */
const HOST_CLI = join(ROOT, 'bin', 'agentctl.js');

/** Runs the host's agentctl and reads its one document. */
async function hostCli(t, args, { exit = 0, kind, cwd }) {
  const result = await execute(process.execPath, [HOST_CLI, ...args, ...JSON_OUTPUT], { env: engineEnv(t.engine, { NO_COLOR: '1' }), cwd });
  return documentOf(result, { exit, kind, schemaFor: t.schemaFor, command: `agentctl ${args.join(' ')}` });
}

/** The error diagnostic codes of an Error document. */
const codes = (error) => error.diagnostics.map((diagnostic) => diagnostic.code);

export const refusals = {
  title: 'a missing secret is exit 6 and an invalid workflow exit 2, and neither creates a database',
  async run(t) {
    const m = t.mounts('refusals');
    const missing = await t.cli(m, RUN('/config/missing-secret.yaml'), { exit: 6, kind: 'Error' });
    assert.ok(codes(missing).includes('AGENTCTL_E_PROVIDER_CREDENTIAL_MISSING'), JSON.stringify(missing.diagnostics));
    assert.equal(missing.error.runId, null);
    assert.deepEqual(readdirSync(m.hosts.state), []);
    const invalid = await t.cli(m, RUN('/config/invalid.yaml'), { exit: 2, kind: 'Error' });
    assert.ok(codes(invalid).includes('AGENTCTL_E_UNKNOWN_FIELD'), JSON.stringify(invalid.diagnostics));
    assert.deepEqual(readdirSync(m.hosts.state), []);
    assert.deepEqual(readdirSync(m.hosts.artifacts), []);
  },
};

/** Polls `probe` (an async predicate) every half second until it holds, or fails after `seconds`. */
async function waitFor(what, probe, seconds = 90) {
  const deadline = Date.now() + seconds * 1000;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${seconds} s waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

export const engineStop = {
  title: 'engine stop of a running run: exit 130, the run recorded cancelled, /state usable afterwards',
  async run(t) {
    const m = t.mounts('stop');
    const name = `agentctl-acceptance-stop-${t.engine}-${process.pid}`;
    const options = { hosts: m.hosts, args: [...RUN('/config/workflow.yaml'), ...JSON_OUTPUT], name };
    const { done } = t.runner.start(options);
    let finished = false;
    done.then(() => (finished = true), () => (finished = true));
    try {
      let runId;
      // Another container watches the mounted state until the run's model request has started.
      await waitFor('the run to start its model request', async () => {
        assert.equal(finished, false, 'the run ended before it was stopped');
        const result = await t.runner.run({ hosts: m.hosts, args: ['runs', 'list', ...DB, ...JSON_OUTPUT] });
        if (result.status !== 0) return false;
        const list = documentOf(result, { exit: 0, kind: 'RunList', schemaFor: t.schemaFor, command: 'runs list' });
        runId = list.data.runs.find((run) => run.state === 'running')?.runId;
        if (runId === undefined) return false;
        return (await inspect(t, m, runId)).data.effects.some((effect) => effect.state === 'started');
      });
      const stopped = await t.runner.stop(name);
      assert.equal(stopped.status, 0, `${t.engine} stop: ${stopped.stderr}`);
      const cancelled = documentOf(await done, { exit: 130, kind: 'RunOutcome', schemaFor: t.schemaFor, command: t.runner.commandLine(options).join(' ') });
      assert.equal(cancelled.data.runId, runId);
      assert.equal(cancelled.data.state, 'cancelled');
      const inspection = await inspect(t, m, runId);
      assert.equal(inspection.data.run.state, 'cancelled');
      const list = await t.cli(m, ['runs', 'list', ...DB], { kind: 'RunList' });
      assert.deepEqual(list.data.runs.map((run) => [run.runId, run.state]), [[runId, 'cancelled']]);
    } finally {
      // A step that failed before the stop leaves no container behind.
      if (!finished) await t.runner.remove(name);
    }
  },
};

export const hostContainerIsolation = {
  title: 'isolation: container from the host agentctl, pinned to a local image id of the same engine',
  async run(t) {
    const images = JSON.parse(readFileSync(join(ROOT, 'test', '.engines.json'), 'utf8'))[t.engine].images;
    const dir = mkdtempSync(join(tmpdir(), `agentctl-acceptance-isolation-${t.engine}-`));
    try {
      const workspace = join(dir, 'workspace');
      cpSync(join(FIXTURES, 'isolation', 'workspace'), workspace, { recursive: true });
      // The container's user reads the workspace mounted at /workspace.
      for (const path of [dir, workspace]) chmodSync(path, 0o755);
      const flow = readFileSync(join(FIXTURES, 'isolation', 'workflow.yaml'), 'utf8').replace('image: IMAGE', `image: ${images.busybox}`).replace('runtime: RUNTIME', `runtime: ${t.engine}`);
      writeFileSync(join(dir, 'workflow.yaml'), flow);
      const run = await hostCli(t, ['run', join(dir, 'workflow.yaml'), '--workspace', workspace, '--db', join(dir, 'state', 'agentctl.db'), '--no-config'], { kind: 'RunOutcome' });
      assert.equal(run.data.state, 'succeeded');
      assert.deepEqual(run.data.output, { said: '65532\nread inside the container\n' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

export const vendoredPack = {
  title: 'a vendored pack folder (packs vendor of packs/hello) runs from /config with --locked --offline',
  async run(t) {
    const dir = mkdtempSync(join(tmpdir(), `agentctl-acceptance-pack-${t.engine}-`));
    try {
      // The author's project: the hello pack as a local code pack of its config, and the workflow that uses it.
      const project = join(dir, 'project');
      cpSync(join(FIXTURES, 'pack'), project, { recursive: true });
      cpSync(join(ROOT, 'packs', 'hello'), join(project, 'packs', 'hello'), { recursive: true, filter: (path) => !path.includes('node_modules') });
      // As after the author's npm install: the SDK the pack declares, here the one installed beside the host's CLI.
      mkdirSync(join(project, 'node_modules', '@agentctl'), { recursive: true });
      symlinkSync(dirname(createRequire(HOST_CLI).resolve('@agentctl/sdk/package.json')), join(project, 'node_modules', '@agentctl', 'sdk'));
      const vendored = await hostCli(t, ['packs', 'vendor', '--out', 'vendored', 'workflow.yaml'], { kind: 'PackVendor', cwd: project });
      assert.ok(vendored.ok);

      const m = freshMounts(dir, 'mounts', undefined, { config: join(project, 'vendored') });
      const run = await t.cli(m, ['run', '/config/workflow.yaml', '--locked', '--offline', '--workspace', '/workspace', ...DB], { kind: 'RunOutcome' });
      assert.equal(run.data.state, 'succeeded');
      assert.deepEqual(run.data.output, { greeting: 'Hello, container!' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
