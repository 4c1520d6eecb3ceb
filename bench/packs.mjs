// Figure (j): what loading one code pack costs a run. The same one-task workflow runs three ways, interleaved, as
// whole CLI invocations in a project where agentctl is installed (node_modules/agentctl links this checkout):
// - no pack: a builtin.assign task, with --no-config;
// - the hello pack listed in agentctl.config.mjs and imported from its folder (packs/hello);
// - the same pack vendored by `agentctl packs vendor` (one bundled ESM file, checked against the lock).
import { cpSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const workflow = (kind) => `apiVersion: agentctl.dev/v1
kind: Workflow
metadata: { name: cold-pack }
spec:
  actions: { greet: { kind: ${kind} } }
  tasks: [{ id: greet, uses: "action:greet", with: { ${kind === 'hello.greet' ? 'name: bench' : 'value: bench'} } }]
`;

export async function measurePackColdStart({ timed, node, cli, root, tmpRoot, reps }) {
  const project = join(tmpRoot, 'pack-project');
  mkdirSync(join(project, 'node_modules'), { recursive: true });
  writeFileSync(join(project, 'package.json'), '{"name": "bench-pack-project", "private": true}\n');
  symlinkSync(root, join(project, 'node_modules', 'agentctl'));
  cpSync(join(root, 'packs', 'hello'), join(project, 'packs', 'hello'), { recursive: true });
  writeFileSync(join(project, 'agentctl.config.mjs'), "export default { packs: ['./packs/hello'] };\n");
  writeFileSync(join(project, 'hello.yaml'), workflow('hello.greet'));
  mkdirSync(join(project, 'plain'));
  writeFileSync(join(project, 'plain', 'assign.yaml'), workflow('builtin.assign'));
  const vendor = await timed(node, [cli, 'packs', 'vendor', '--out', 'vendored', 'hello.yaml'], { cwd: project });
  if (vendor.code !== 0) throw new Error(`packs vendor exited ${vendor.code}: ${vendor.stderr}`);
  const runs = {
    none: ['run', 'plain/assign.yaml', '--no-config'],
    pack: ['run', 'hello.yaml'],
    vendored: ['run', 'vendored/hello.yaml', '--locked', '--offline'],
  };
  const samples = { none: [], pack: [], vendored: [] };
  let n = 0;
  for (let rep = -1; rep < reps; rep += 1) {
    for (const [name, args] of Object.entries(runs)) {
      n += 1;
      const result = await timed(node, [cli, ...args, '--db', join(tmpRoot, `pack-cold-${n}.db`)], { cwd: project });
      if (result.code !== 0) throw new Error(`agentctl ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
      if (rep >= 0) samples[name].push(result.ms); // the first round warms the page cache
    }
  }
  return samples;
}
