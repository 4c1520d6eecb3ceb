// Figure (h) of bench/run.mjs: what `isolation: container` costs per action over the engine's own `run` command
// with the same controls. Each engine is measured in pairs (one agentctl run, one plain run), alternating, so
// both see the same machine load; the figure is the median of the paired ratios.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const MEMORY = 268435456;

/** The engines scripts/test-engines.sh prepared (socket, busybox image id), or the reason there are none. */
export function benchEngines(root) {
  const file = join(root, 'test', '.engines.json');
  if (!existsSync(file)) return { reason: 'test/.engines.json is missing: run `bash scripts/test-engines.sh` (as root) to start Docker and Podman and import the images' };
  const recorded = JSON.parse(readFileSync(file, 'utf8'));
  const engines = [];
  const skipped = [];
  for (const name of ['docker', 'podman']) {
    const entry = recorded[name];
    const answer = spawnSync('curl', ['--silent', '--fail', '--max-time', '3', '--unix-socket', entry?.socket ?? '/nonexistent', 'http://d/_ping'], { encoding: 'utf8' });
    if (answer.status === 0 && entry?.images?.busybox) engines.push({ name, socket: entry.socket, image: entry.images.busybox });
    else skipped.push(`${name}: no answer on ${entry?.socket ?? '(no socket recorded)'}`);
  }
  return { engines, skipped };
}

function workflowText(engine) {
  return [
    'apiVersion: agentctl.dev/v1',
    'kind: Workflow',
    'metadata: {name: bench-container}',
    'spec:',
    '  policy: {processAllowlist: ["true"], approval: never}',
    '  actions:',
    `    act: {kind: builtin.shell.exec, command: /bin/true, isolation: container, container: {image: "${engine.image}", runtime: ${engine.name}, memoryLimitBytes: ${MEMORY}, cpuLimitMillis: 1000, pidsLimit: 64}}`,
    '  tasks:',
    '    - {id: t1, uses: action:act}',
    '',
  ].join('\n');
}

/** The engine's own command with every control agentctl sets. */
function plainCommand(engine, workspace) {
  const controls = [
    'run', '--rm', '--read-only', '--user', '65532:65532', '--network', 'none', '--cap-drop', 'ALL',
    '--security-opt', 'no-new-privileges', '--memory', String(MEMORY), '--memory-swap', String(MEMORY), '--cpus', '1',
    '--pids-limit', '64', '--tmpfs', '/tmp:rw,noexec,nosuid,nodev,size=16m,mode=1777',
    '-v', `${workspace}:/workspace:ro`, '-w', '/workspace', engine.image, '/bin/true',
  ];
  return engine.name === 'docker' ? ['docker', ['-H', `unix://${engine.socket}`, ...controls]] : ['podman', controls];
}

/** Paired runs of one engine: agentctl's one-task container workflow, then the plain command. */
export async function measureEngine(engine, { timed, node, cli, tmpRoot, reps }) {
  const dir = join(tmpRoot, `container-${engine.name}`);
  const workspace = join(dir, 'ws');
  mkdirSync(workspace, { recursive: true });
  // uid 65532 enters the workspace through the bind mount.
  chmodSync(tmpRoot, 0o755);
  chmodSync(dir, 0o755);
  chmodSync(workspace, 0o755);
  const file = join(dir, 'flow.yaml');
  writeFileSync(file, workflowText(engine));
  const env = { ...process.env, NO_COLOR: '1', [engine.name === 'docker' ? 'DOCKER_HOST' : 'CONTAINER_HOST']: `unix://${engine.socket}` };
  const [command, args] = plainCommand(engine, workspace);
  const agentctl = [];
  const plain = [];
  for (let i = 0; i <= reps; i++) {
    const db = join(dir, `state-${i}`, 'runtime.db');
    const run = await timed(node, [cli, 'run', file, '--db', db, '--workspace', workspace, '--output', 'json'], { cwd: workspace, env });
    if (run.code !== 0) throw new Error(`agentctl run on ${engine.name} failed (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
    rmSync(join(dir, `state-${i}`), { recursive: true, force: true });
    const direct = await timed(command, args, { cwd: workspace });
    if (direct.code !== 0) throw new Error(`${command} run failed (exit ${direct.code}):\n${direct.stderr}`);
    // The first pair warms the engine (image layers, runtime binaries) and is not counted.
    if (i === 0) continue;
    agentctl.push(run.ms);
    plain.push(direct.ms);
  }
  return { agentctl, plain, ratios: agentctl.map((ms, i) => ms / plain[i]) };
}
