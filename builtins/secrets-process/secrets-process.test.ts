import { expect } from 'chai';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SecretResolverTester } from '@agentctl/cli/testing';
import plugin from './plugin.js';

const folder = realpathSync(mkdtempSync(join(tmpdir(), 'agentctl-secret-process-')));
after(() => rmSync(folder, { recursive: true, force: true }));

// The plugin registered alone in a real host; references go through the host's secret hook, as preflight sends them.
const tester = new SecretResolverTester(plugin);

/** Writes an executable shell script into the test folder and returns its path. */
const helper = (name: string, body: string) => {
  const path = join(folder, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
};

const resolve = (process: unknown, options: { allow?: string[]; checkOnly?: boolean; environment?: NodeJS.ProcessEnv } = {}) =>
  tester.resolve({ process: process as never }, {
    workspaceRoot: folder,
    environment: options.environment ?? { PATH: `${folder}:/usr/bin:/bin` },
    policy: { secretProcessAllowlist: options.allow ?? ['helper-ok', 'helper-slow', 'helper-fail', 'helper-loud', 'helper-latin1', 'helper-marker'] },
    checkOnly: options.checkOnly,
  });

async function refusal(promise: Promise<string>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    return { code: (error as { code: string }).code, message: (error as Error).message };
  }
  throw new Error('the reference was resolved');
}

/** Pids of live processes whose command line contains `needle`. */
function alive(needle: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').includes(needle);
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('builtin.secrets.process', function () {
  this.timeout(20_000);
  before(() => {
    helper('helper-ok', 'echo "helper-value-$1[${HOME-nohome}][${AGENTCTL_LEAK-noleak}]"; echo on-stderr >&2');
    helper('helper-slow', `/bin/sleep ${'91.731'} & /bin/sleep 91.731`);
    helper('helper-fail', 'echo fail-secret-output; echo fail-secret-error >&2; exit 3');
    helper('helper-loud', 'i=0; while [ $i -lt 100 ]; do echo 0123456789; i=$((i+1)); done');
    helper('helper-latin1', "printf 'pw\\351!!'");
    helper('helper-marker', `: > ${join(folder, 'marker')}; echo marker-value`);
  });

  it('runs the helper by name on PATH or by absolute path, with an empty environment, dropping one newline', async () => {
    process.env.AGENTCTL_LEAK = 'leaked';
    try {
      expect(await resolve({ command: 'helper-ok', args: ['a'] })).to.equal('helper-value-a[nohome][noleak]');
      expect(await resolve({ command: join(folder, 'helper-ok'), args: ['b'] }, { environment: {} })).to.equal('helper-value-b[nohome][noleak]');
    } finally {
      delete process.env.AGENTCTL_LEAK;
    }
  });

  it('a helper past timeoutSeconds is refused and its whole process group is killed', async () => {
    const started = Date.now();
    const refused = await refusal(resolve({ command: 'helper-slow', timeoutSeconds: 1 }));
    expect(refused.code).to.equal('AGENTCTL_E_SECRET_PROCESS_TIMEOUT');
    expect(Date.now() - started).to.be.below(4000);
    expect(alive('sleep 91.731')).to.deep.equal([]);
  });

  it('a non-zero exit is refused with the status only: neither stdout nor stderr is shown', async () => {
    const refused = await refusal(resolve({ command: 'helper-fail' }));
    expect(refused).to.deep.equal({ code: 'AGENTCTL_E_SECRET_PROCESS_FAILED', message: '{process: ...} helper "helper-fail" exited with status 3' });
  });

  const cases: [string, unknown, { allow?: string[] }, string][] = [
    ['a helper not allowlisted', { command: 'helper-ok' }, { allow: ['other'] }, 'AGENTCTL_E_SECRET_PROCESS_NOT_ALLOWED'],
    ['any helper when the allowlist is empty', { command: 'helper-ok' }, { allow: [] }, 'AGENTCTL_E_SECRET_PROCESS_NOT_ALLOWED'],
    ['a helper not found', { command: 'helper-none' }, { allow: ['helper-none'] }, 'AGENTCTL_E_SECRET_PROCESS_NOT_FOUND'],
    ['a relative path', { command: './helper-ok' }, {}, 'AGENTCTL_E_SECRET_REFERENCE_INVALID'],
    ['output over outputLimitBytes', { command: 'helper-loud', outputLimitBytes: 100 }, {}, 'AGENTCTL_E_SECRET_PROCESS_OUTPUT_TOO_LARGE'],
    ['output that is not UTF-8', { command: 'helper-latin1' }, {}, 'AGENTCTL_E_SECRET_PROCESS_ENCODING'],
    ['timeoutSeconds over 60', { command: 'helper-ok', timeoutSeconds: 61 }, {}, 'AGENTCTL_E_SECRET_REFERENCE_INVALID'],
    ['outputLimitBytes over 65536', { command: 'helper-ok', outputLimitBytes: 65537 }, {}, 'AGENTCTL_E_SECRET_REFERENCE_INVALID'],
    ['65 arguments', { command: 'helper-ok', args: Array.from({ length: 65 }, () => 'x') }, {}, 'AGENTCTL_E_SECRET_REFERENCE_INVALID'],
    ['an argument over 4096 bytes', { command: 'helper-ok', args: ['é'.repeat(2049)] }, {}, 'AGENTCTL_E_SECRET_REFERENCE_INVALID'],
    ['an unknown field', { command: 'helper-ok', shell: true }, {}, 'AGENTCTL_E_SECRET_REFERENCE_INVALID'],
  ];
  for (const [title, reference, options, code] of cases) {
    it(`refuses ${title} with ${code}`, async () => {
      const refused = await refusal(resolve(reference, options));
      expect(refused.code).to.equal(code);
      expect(refused.message).to.not.contain('0123456789');
    });
  }

  it('a check looks the helper up and applies the allowlist, but never runs it', async () => {
    expect(await resolve({ command: 'helper-marker' }, { checkOnly: true })).to.equal('');
    expect(readdirSync(folder)).to.not.include('marker');
    expect((await refusal(resolve({ command: 'helper-marker' }, { checkOnly: true, allow: [] }))).code).to.equal('AGENTCTL_E_SECRET_PROCESS_NOT_ALLOWED');
    expect(await resolve({ command: 'helper-marker' })).to.equal('marker-value');
    expect(readdirSync(folder)).to.include('marker');
  });
});
