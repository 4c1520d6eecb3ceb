// Builds the image's compile cache (docs/image.md#start-up): run in a stage made from the runtime base, as root, it
// makes /opt/agentctl/compile-cache, runs a few agentctl commands as 65532 with NODE_COMPILE_CACHE pointing there
// (Node names the cache's folder after its version and the user id, so the user that writes it must be the one that
// later reads it), then hands the folder to root, read-only. The runtime stage copies the folder and sets
// NODE_COMPILE_CACHE: a container under `--read-only` then loads compiled code instead of compiling the bundle.
// A Node without a compile cache (before 22.1) makes an empty folder and says so; a Node that has one must fill it.
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import module from 'node:module';
import { join } from 'node:path';

const CACHE = '/opt/agentctl/compile-cache';
const BIN = '/opt/agentctl/node_modules/.bin/agentctl';
const USER = 65532;

/** A workflow that touches the compiler, the policy, the store and the run driver without a shell (the image has none). */
const WORKFLOW = `apiVersion: agentctl.dev/v1
kind: Workflow
metadata: { name: warm-compile-cache }
spec:
  inputs: { name: image }
  policy: { writableRoots: [out], approval: never }
  actions:
    set: { kind: builtin.assign }
    save: { kind: builtin.write }
  tasks:
    - id: greet
      uses: action:set
      with: { greeting: "hello, \${{ inputs.name }}" }
    - id: save
      uses: action:save
      needs: [greet]
      with: { path: out/greeting.txt, content: "\${{ tasks.greet.output.output.greeting }}" }
  outputs:
    greeting: "\${{ tasks.greet.output.output.greeting }}"
`;

function walk(path, visit) {
  visit(path);
  if (statSync(path).isDirectory()) for (const name of readdirSync(path)) walk(join(path, name), visit);
}

mkdirSync(CACHE, { recursive: true });
if (typeof module.enableCompileCache !== 'function') {
  process.stdout.write(`compile cache: Node ${process.version} has none; the image starts without one\n`);
} else {
  const work = mkdtempSync('/tmp/agentctl-warm-');
  writeFileSync(join(work, 'warm.yaml'), WORKFLOW);
  mkdirSync(join(work, 'out'));
  walk(work, (path) => chownSync(path, USER, USER));
  chownSync(CACHE, USER, USER);
  const db = join(work, 'state', 'runtime.db');
  const commands = [
    ['--help'],
    ['check', 'warm.yaml'],
    ['plan', 'warm.yaml', '--output', 'json'],
    ['run', 'warm.yaml', '--db', db, '--workspace', work, '--output', 'json'],
    ['runs', 'list', '--db', db, '--output', 'json'],
  ];
  for (const args of commands) {
    const result = spawnSync(process.execPath, [BIN, ...args], {
      cwd: work, uid: USER, gid: USER, encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: work, NODE_COMPILE_CACHE: CACHE },
    });
    if (result.status !== 0) {
      process.stderr.write(`compile cache: agentctl ${args.join(' ')} exited ${result.status ?? result.signal}\n${result.stderr}`);
      process.exit(1);
    }
  }
  rmSync(work, { recursive: true, force: true });
  let files = 0;
  walk(CACHE, (path) => {
    chownSync(path, 0, 0);
    const directory = statSync(path).isDirectory();
    if (!directory) files += 1;
    chmodSync(path, directory ? 0o755 : 0o644);
  });
  if (files === 0) {
    process.stderr.write(`compile cache: Node ${process.version} wrote nothing under ${CACHE}\n`);
    process.exit(1);
  }
  process.stdout.write(`compile cache: ${files} modules under ${CACHE} for Node ${process.version}, user ${USER}\n`);
}
