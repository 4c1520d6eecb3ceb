// A container binds a spec's workspace mounts read-only at their targets, and refuses what it cannot honour.
import { expect } from 'chai';
import type { ProcessSpec } from '@agentctl/sdk';
import { createRequest } from './container.js';
import { containerOptionsSchema } from './options.js';
import { refuseContainerMount } from './plugin.js';

const options = containerOptionsSchema.parse({ image: `sha256:${'a'.repeat(64)}` });
const placement = { imageId: `sha256:${'a'.repeat(64)}`, volumes: [], engine: { identity: 'docker' as const } };
const spec: ProcessSpec = {
  isolation: 'container',
  executable: 'sh',
  args: [],
  cwd: '/ws/sub',
  env: {},
  mounts: [{ source: { workspace: '/ws/data' }, target: '/data', readOnly: true }],
  timeoutMs: 1000,
  limits: { stdout: 1, stderr: 1, combined: 2 },
};

describe('container isolation: mounts', () => {
  it('binds each workspace mount read-only after the working directory', () => {
    expect(createRequest(spec, options, placement, 'agentctl-x').HostConfig?.Mounts).to.deep.equal([
      { Type: 'bind', Source: '/ws/sub', Target: '/workspace', ReadOnly: true },
      { Type: 'bind', Source: '/ws/data', Target: '/data', ReadOnly: true },
    ]);
  });

  it('honours a read-only workspace mount; refuses a writable one, an artifact and its own places', () => {
    const workspace = (target: string, readOnly = true) => refuseContainerMount({ source: { workspace: '/ws/data' }, target, readOnly });
    expect(workspace('/data')).to.equal(undefined);
    expect(workspace('/data', false)).to.match(/only writable place is its \/tmp/);
    expect(refuseContainerMount({ source: { artifact: `sha256:${'b'.repeat(64)}` }, target: '/data', readOnly: true })).to.match(/workspace paths only/);
    expect(['/', '/workspace', '/workspace/x', '/tmp', '/proc/1', '/dev'].map((target) => workspace(target) !== undefined)).to.deep.equal([true, true, true, true, true, true]);
    expect(workspace('/tmpdata')).to.equal(undefined);
  });
});
