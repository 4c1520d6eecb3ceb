// Running agentctl's image the way CI runs it: every command line comes from the image's run contract
// (scripts/image/contract.mjs), so what the gate proves is the line the recipes print.
import { spawn } from 'node:child_process';
import { runArguments } from '../image/contract.mjs';
import { engineEnv as clientEnv } from '../image/engine.mjs';

/** The environment of an engine's client (Docker's points at the daemon test-engines.sh starts), plus `extra`. */
export function engineEnv(engine, extra = {}) {
  return { ...clientEnv(engine), ...extra };
}

/**
 * Starts a command and collects its output. `done` never rejects for a non-zero exit: the exit is the result.
 * @returns {{ child: import('node:child_process').ChildProcess, done: Promise<{ status: number | null, signal: string | null, stdout: string, stderr: string }> }}
 */
export function start(command, args, { env = process.env, cwd, timeoutMs = 180_000 } = {}) {
  const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const stdout = [];
  const stderr = [];
  child.stdout.on('data', (chunk) => stdout.push(chunk));
  child.stderr.on('data', (chunk) => stderr.push(chunk));
  const done = new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') });
    });
  });
  return { child, done };
}

/** Runs a command to its end. */
export function execute(command, args, options) {
  return start(command, args, options).done;
}

/**
 * The image under test in one engine.
 * @param {'podman' | 'docker'} engine
 * @param {string} image
 */
export function imageRunner(engine, image) {
  const argv = ({ hosts, args, env = [], network = 'none', name }) => runArguments({ image, hosts, args, env, network, name });
  return {
    engine,
    image,
    /** The full command line of one run (engine first), for messages and logs. */
    commandLine: (options) => [engine, ...argv(options)],
    /** Starts one container of the image with agentctl's arguments; see contract.mjs for the options. */
    start: (options, timeoutMs) => start(engine, argv(options), { env: engineEnv(engine), timeoutMs }),
    /** Runs one container of the image to its end. */
    run: (options, timeoutMs) => start(engine, argv(options), { env: engineEnv(engine), timeoutMs }).done,
    /** `podman stop` / `docker stop`: SIGTERM to the container's agentctl, SIGKILL after `seconds`. */
    stop: (name, seconds = 30) => execute(engine, ['stop', '-t', String(seconds), name], { env: engineEnv(engine) }),
    /** Removes a container whatever its state (nothing when there is none). */
    remove: (name) => execute(engine, ['rm', '-f', name], { env: engineEnv(engine) }),
  };
}
