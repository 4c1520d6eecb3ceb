import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ActionKindTester, runAction } from '@agentctl/cli/testing';

const allow = (...names: string[]) => ({ processAllowlist: names });

new ActionKindTester().run('builtin.shell.exec', {
  valid: [
    { name: 'echo by bare name', action: { command: 'echo', args: ['a b', '$HOME'] }, policy: allow('echo'), output: { exitCode: 0, stdout: 'a b $HOME\n', stderr: '' } },
    { name: 'an empty environment', action: { command: '/usr/bin/env' }, policy: allow('env'), output: { exitCode: 0, stdout: '', stderr: '' } },
    {
      name: 'plain and secret env values, the secret redacted',
      action: { command: 'env', env: { LANG: 'C', TOKEN: { env: 'SOURCE' } } },
      policy: { ...allow('env'), environmentAllowlist: ['LANG', 'TOKEN'] },
      environment: { SOURCE: 'hunter2-secret' },
      output: { exitCode: 0, stdout: 'LANG=C\nTOKEN=[REDACTED]\n', stderr: '' },
    },
    { name: 'with.args come after the static args', action: { command: 'echo', args: ['a'] }, input: { args: ['b', 'c d'] }, policy: allow('echo'), output: { exitCode: 0, stdout: 'a b c d\n', stderr: '' } },
    { name: 'with.stdin is written to the child', action: { command: 'cat' }, input: { stdin: 'line 1\nline 2\n' }, policy: allow('cat'), output: { exitCode: 0, stdout: 'line 1\nline 2\n', stderr: '' } },
    {
      name: 'templates in with reach args and stdin at run time',
      action: { command: 'sh', args: ['-c', 'echo "$1"; cat', 'sh'] },
      input: { args: ['${{ inputs.who }}'], stdin: 'to ${{ inputs.who }}' },
      inputs: { who: 'Ada' },
      policy: allow('sh'),
      output: { exitCode: 0, stdout: 'Ada\nto Ada', stderr: '' },
    },
  ],
  invalid: [
    { name: 'basename not allowlisted', action: { command: 'echo' }, policy: allow('true'), error: { code: 'AGENTCTL_E_POLICY_PROCESS_DENIED' } },
    { name: 'env name not allowlisted', action: { command: 'env', env: { X: 'y' } }, policy: allow('env'), error: { code: 'AGENTCTL_E_POLICY_ENV_DENIED' } },
    { name: 'cwd escapes with ..', action: { command: 'true', cwd: '../' }, policy: allow('true'), error: { code: 'AGENTCTL_E_POLICY_PATH_ESCAPE' } },
    { name: 'cwd outside the workspace', action: { command: 'true', cwd: '/tmp' }, policy: allow('true'), error: { code: 'AGENTCTL_E_POLICY_PATH_ESCAPE' } },
    { name: 'relative command paths are refused', action: { command: './run.sh' }, policy: allow('run.sh'), error: { code: 'AGENTCTL_E_SCHEMA' } },
    { name: 'a command that does not exist fails preflight', action: { command: 'agentctl-no-such-command' }, policy: allow('agentctl-no-such-command'), error: { code: 'AGENTCTL_E_COMMAND_NOT_FOUND' } },
    { name: 'non-zero exit fails', action: { command: 'false' }, policy: allow('false'), error: { code: 'AGENTCTL_E_PROCESS_EXIT' } },
    { name: 'a missing secret fails preflight', action: { command: 'env', env: { T: { env: 'ABSENT' } } }, policy: { ...allow('env'), environmentAllowlist: ['T'] }, error: { code: 'AGENTCTL_E_SECRET_MISSING' } },
    { name: 'an unknown secret form', action: { command: 'env', env: { T: { vault: 'x' } } }, policy: { ...allow('env'), environmentAllowlist: ['T'] }, error: { code: 'AGENTCTL_E_SECRET_FORM_UNKNOWN' } },
    { name: 'limits are bounded to 16 MiB', action: { command: 'true', stdoutLimitBytes: 17 * 1024 * 1024 }, policy: allow('true'), error: { code: 'AGENTCTL_E_SCHEMA' } },
    { name: 'templates are not allowed in action fields', action: { command: 'echo', args: ['${{ inputs.x }}'] }, policy: allow('echo'), error: { code: 'AGENTCTL_E_TEMPLATE_NOT_ALLOWED' } },
    { name: 'with takes only args and stdin', action: { command: 'true' }, input: { argv: ['x'] }, policy: allow('true'), error: { code: 'AGENTCTL_E_UNKNOWN_FIELD' } },
    { name: 'a NUL byte in with.args', action: { command: 'echo' }, input: { args: ['a\u0000b'] }, policy: allow('echo'), error: { code: 'AGENTCTL_E_SCHEMA' } },
    { name: 'with.stdin over 1 MiB', action: { command: 'cat' }, input: { stdin: 'x'.repeat(1024 * 1024 + 1) }, policy: allow('cat'), error: { code: 'AGENTCTL_E_SCHEMA' } },
    { name: 'with.args must be strings', action: { command: 'echo' }, input: { args: [1] }, policy: allow('echo'), error: { code: 'AGENTCTL_E_SCHEMA' } },
    { name: 'a template rendering a NUL byte fails the task', action: { command: 'echo' }, input: { args: ['${{ inputs.bad }}'] }, inputs: { bad: 'a\u0000b' }, policy: allow('echo'), error: { code: 'AGENTCTL_E_TASK_INPUT_INVALID' } },
    { name: 'toolsAllow without process.exec', action: { command: 'true' }, policy: { ...allow('true'), toolsAllow: ['filesystem.read'] }, error: { code: 'AGENTCTL_E_POLICY_TOOL_DENIED' } },
  ],
});

describe('builtin.shell.exec outcomes', () => {
  it('records the run-time args and the size and digest of stdin in the effect input', async () => {
    const result = await runAction('builtin.shell.exec', { action: { command: 'cat', args: ['-'] }, input: { args: ['-u'], stdin: 'hello' }, policy: allow('cat') });
    expect(result.state).to.equal('succeeded');
    const [effect] = result.inspection!.effects as unknown as { input: { args: string[]; stdin: unknown } }[];
    expect(effect!.input.args).to.deep.equal(['-', '-u']);
    expect(effect!.input.stdin).to.deep.equal({ bytes: 5, sha256: '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824' });
  });

  it('never searches the caller PATH for a bare name', async () => {
    const bin = mkdtempSync(join(tmpdir(), 'agentctl-path-'));
    writeFileSync(join(bin, 'agentctl-path-probe'), '#!/bin/sh\necho found\n', { mode: 0o755 });
    const saved = process.env.PATH;
    process.env.PATH = `${bin}:${saved}`;
    try {
      const result = await runAction('builtin.shell.exec', { action: { command: 'agentctl-path-probe' }, policy: allow('agentctl-path-probe') });
      expect(result.code).to.equal('AGENTCTL_E_COMMAND_NOT_FOUND');
    } finally {
      process.env.PATH = saved;
      rmSync(bin, { recursive: true, force: true });
    }
  });

  it('records a failed effect with the exit status and redacted output', async () => {
    const result = await runAction('builtin.shell.exec', {
      action: { command: 'sh', args: ['-c', 'echo out-$T; echo err-$T >&2; exit 3'], env: { T: { env: 'S' } } },
      policy: { processAllowlist: ['sh'], environmentAllowlist: ['T'] },
      environment: { S: 'canary-7f3a' },
    });
    expect(result.state).to.equal('failed');
    expect(result.code).to.equal('AGENTCTL_E_PROCESS_EXIT');
    const [effect] = result.inspection!.effects;
    expect(effect!.state).to.equal('failed');
    expect(effect!.result).to.deep.equal({ exitCode: 3, signal: null, stdout: 'out-[REDACTED]\n', stderr: 'err-[REDACTED]\n' });
    expect(JSON.stringify(result.inspection)).not.to.contain('canary-7f3a');
    expect((effect!.input as { env: { T: { digest: string } } }).env.T.digest).to.match(/^hmac-sha256:[0-9a-f]{64}$/);
  });

  it('a stderr overflow fails naming stderr', async () => {
    const result = await runAction('builtin.shell.exec', {
      action: { command: 'sh', args: ['-c', 'yes >&2'], stderrLimitBytes: 1000 },
      policy: { processAllowlist: ['sh'] },
    });
    expect(result.code).to.equal('AGENTCTL_E_PROCESS_OUTPUT_LIMIT');
    expect(result.diagnostics[0]!.message).to.contain('stderr').and.to.contain('1000');
    const effect = result.inspection!.effects[0]!;
    expect(effect.state).to.equal('failed');
    expect((effect.result as { stderr: string }).stderr.length).to.equal(1000);
  });

  it('the combined limit applies across both streams', async () => {
    const result = await runAction('builtin.shell.exec', {
      action: { command: 'sh', args: ['-c', 'yes | head -c 3000; yes >&2'], combinedOutputLimitBytes: 4000, stdoutLimitBytes: 3500, stderrLimitBytes: 3500 },
      policy: { processAllowlist: ['sh'] },
    });
    expect(result.code).to.equal('AGENTCTL_E_PROCESS_OUTPUT_LIMIT');
    expect(result.diagnostics[0]!.message).to.contain('combined');
  });

  it('a task timeout shorter than the action timeout ends the process as an uncertain timeout', async () => {
    const started = Date.now();
    const result = await runAction('builtin.shell.exec', { action: { command: 'sleep', args: ['30'], timeoutSeconds: 60 }, task: { timeoutSeconds: 1 }, policy: { processAllowlist: ['sleep'] } });
    expect(Date.now() - started).to.be.below(10_000);
    expect(result.code).to.equal('AGENTCTL_E_PROCESS_TIMEOUT');
    expect(result.inspection!.effects[0]!.state).to.equal('uncertain');
  });
});
