// The image's run contract, in one place: the flags and mounts every `docker run` / `podman run` of agentctl's image
// uses. The container acceptance gate builds its commands from it, and the CI recipes in docs/ci/ are rendered from
// it, so the line a user copies is the line the gate ran.

/** The image's fixed user and group (distroless `nonroot`). */
export const IMAGE_USER = '65532:65532';

/** Flags of every run: no root, no writable image, a small private /tmp, no privilege or capability. */
export const RUN_FLAGS = Object.freeze([
  '--rm',
  '--read-only',
  '--user', IMAGE_USER,
  '--tmpfs', '/tmp:rw,noexec,nosuid,size=16m',
  '--cap-drop', 'ALL',
  '--security-opt', 'no-new-privileges',
]);

/** The four mounts: name (the host folder's role), target in the container, and whether it is read-only. */
export const MOUNTS = Object.freeze([
  Object.freeze({ name: 'config', target: '/config', readOnly: true }),
  Object.freeze({ name: 'workspace', target: '/workspace', readOnly: true }),
  Object.freeze({ name: 'state', target: '/state', readOnly: false }),
  Object.freeze({ name: 'artifacts', target: '/artifacts', readOnly: false }),
]);

/** The database inside /state, as every command of the contract names it. */
export const STATE_DB = '/state/agentctl.db';

/**
 * The arguments after the engine's name for one run of the image.
 * @param {object} options
 * @param {string} options.image the image reference
 * @param {Record<string, string>} options.hosts the host folder of each mount, by mount name
 * @param {readonly string[]} [options.args] agentctl's arguments
 * @param {readonly string[]} [options.env] names of host environment variables to forward (values never appear)
 * @param {string | null} [options.network] `none` for a step that needs no network; null leaves the engine's default
 * @param {string} [options.name] the container's name
 * @param {boolean} [options.workspaceWritable] mount /workspace read-write (default read-only)
 */
export function runArguments({ image, hosts, args = [], env = [], network = 'none', name, workspaceWritable = false }) {
  const argv = ['run', ...RUN_FLAGS];
  if (name !== undefined) argv.push('--name', name);
  if (network !== null) argv.push('--network', network);
  for (const mount of MOUNTS) {
    const source = hosts[mount.name];
    if (source === undefined) throw new Error(`runArguments: no host folder for ${mount.target}`);
    const readOnly = mount.readOnly && !(mount.name === 'workspace' && workspaceWritable);
    argv.push('--mount', `type=bind,src=${source},dst=${mount.target}${readOnly ? ',readonly' : ''}`);
  }
  for (const variable of env) argv.push('--env', variable);
  argv.push(image, ...args);
  return argv;
}
