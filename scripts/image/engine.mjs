// How the image scripts reach the two container engines: Podman through its command line, Docker through the
// daemon scripts/test-engines.sh starts (its socket is not the client's default on the project's machines).
import { spawn, spawnSync } from 'node:child_process';

const DOCKER_HOST = process.env.DOCKER_HOST ?? 'unix:///run/docker.sock';

/** The engine's environment: Docker's client is pointed at the daemon the test set-up starts. */
export function engineEnv(engine) {
  return engine === 'docker' ? { ...process.env, DOCKER_HOST } : process.env;
}

/** Runs an engine command and returns its stdout; throws with the command and its stderr when it fails. */
export function engine(name, args, { input, maxBuffer = 64 * 1024 * 1024 } = {}) {
  const result = spawnSync(name, args, { env: engineEnv(name), input, maxBuffer, encoding: 'utf8' });
  if (result.error) throw new Error(`${name} ${args.join(' ')}: ${result.error.message}`);
  if (result.status !== 0) {
    throw new Error(`${name} ${args.join(' ')} exited ${result.status}: ${result.stderr.trim().slice(-2000)}`);
  }
  return result.stdout;
}

/** Whether the engine's client exists and its service answers. */
export function answers(name) {
  const result = spawnSync(name, ['version', '--format', '{{.Server.Version}}'], {
    env: engineEnv(name), encoding: 'utf8', timeout: 10_000,
  });
  return result.status === 0 && result.stdout.trim() !== '';
}

/** The image's id (`sha256:…`), or null when the engine does not hold that reference. */
export function imageId(name, reference) {
  const result = spawnSync(name, ['image', 'inspect', '--format', '{{.Id}}', reference], {
    env: engineEnv(name), encoding: 'utf8',
  });
  if (result.status !== 0) return null;
  const id = result.stdout.trim();
  return id.startsWith('sha256:') ? id : `sha256:${id}`;
}

/**
 * Runs a command with its output streamed (to stderr, so a caller's stdout stays its own), or collected when quiet;
 * resolves when it exits 0, rejects with its last output otherwise.
 */
export function stream(command, args, { quiet = false, env = process.env, cwd } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = '';
    const keep = (chunk) => {
      tail = (tail + chunk).slice(-4000);
      if (!quiet) process.stderr.write(chunk);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${command} ${args.join(' ')} exited ${code ?? signal}\n${tail}`));
    });
  });
}

const quote = (word) => `'${String(word).replaceAll("'", "'\\''")}'`;

/**
 * `left | right` through bash (a real pipe: `podman export` and `podman save` refuse to write to a socket, which is
 * what Node's own stdio pipes are); fails when either side fails. Resolves right's stdout.
 */
export async function pipe([leftCommand, leftArgs, leftEnv], [rightCommand, rightArgs, rightEnv]) {
  const line = `set -o pipefail; ${[leftCommand, ...leftArgs].map(quote).join(' ')} | ${[rightCommand, ...rightArgs].map(quote).join(' ')}`;
  const env = { ...process.env, ...leftEnv, ...rightEnv };
  const result = await new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', line], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => { out += chunk; });
    child.stderr.on('data', (chunk) => { err += chunk; });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code: code ?? signal, out, err }));
  });
  if (result.code !== 0) throw new Error(`${leftCommand} | ${rightCommand} exited ${result.code}: ${result.err.trim().slice(-2000)}`);
  return result.out;
}
