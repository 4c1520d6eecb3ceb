import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ActionKindTester, runAction, useWorkspace, type ActionResult } from '@agentctl/cli/testing';

const FIXTURE = fileURLToPath(new URL('../../test/fixtures/extension-fixture.mjs', import.meta.url));
const SCHEMA = { type: 'object', required: ['value'], additionalProperties: false, properties: { value: { type: 'string' } } };
const POLICY = { processAllowlist: ['node'] };

/** An action running the fixture with a behaviour, declaring what the fixture's handshake declares. */
const fixture = (behaviour: string, fields: Record<string, unknown> = {}) => ({
  command: 'node',
  args: [FIXTURE, behaviour],
  protocolVersion: 'agentctl.dev/process-extension/v1',
  idempotency: 'keyed',
  capabilities: ['fixture.echo'],
  inputSchema: SCHEMA,
  outputSchema: SCHEMA,
  timeoutSeconds: 20,
  ...fields,
});

/** The launches the fixture logged in the workspace (the test's own, which outlives the run). */
const launches = (result: ActionResult) => {
  const log = join(result.workspace, 'launches.log');
  return existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
};

new ActionKindTester().run('extension.process', {
  valid: [
    { name: 'a handshake that matches, then the output of the invocation', action: fixture('ok'), input: { value: 'hi' }, policy: POLICY, output: { value: 'HI' } },
    { name: 'schemas compare as JSON values: key order does not matter', action: fixture('reordered'), input: { value: 'a' }, policy: POLICY, output: { value: 'A' } },
    { name: 'with from a template, checked after rendering', action: fixture('ok'), input: { value: '${{ inputs.v }}' }, inputs: { v: 'x' }, policy: POLICY, output: { value: 'X' } },
  ],
  invalid: [
    { name: 'another protocolVersion', action: fixture('ok', { protocolVersion: 'agentctl.dev/process-extension/v2' }), input: { value: 'a' }, policy: POLICY, error: { code: 'AGENTCTL_E_SCHEMA' } },
    { name: 'a capability listed twice', action: fixture('ok', { capabilities: ['a', 'a'] }), input: { value: 'a' }, policy: POLICY, error: { code: 'AGENTCTL_E_SCHEMA' } },
    { name: 'an inputSchema that does not compile', action: fixture('ok', { inputSchema: { type: 'text' } }), input: { value: 'a' }, policy: POLICY, error: { code: 'AGENTCTL_E_SCHEMA' } },
    { name: 'an outputSchema that is not a schema', action: fixture('ok', { outputSchema: 'string' }), input: { value: 'a' }, policy: POLICY, error: { code: 'AGENTCTL_E_SCHEMA' } },
    { name: 'idempotency is required', action: fixture('ok', { idempotency: undefined }), input: { value: 'a' }, policy: POLICY, error: { code: 'AGENTCTL_E_SCHEMA' } },
    { name: 'an unknown action field', action: fixture('ok', { schemas: {} }), input: { value: 'a' }, policy: POLICY, error: { code: 'AGENTCTL_E_UNKNOWN_FIELD' } },
    { name: 'a static with that violates inputSchema', action: fixture('ok'), input: { value: 7 }, policy: POLICY, error: { code: 'AGENTCTL_E_SCHEMA' } },
    { name: 'a rendered with that violates inputSchema', action: fixture('ok'), input: { value: '${{ inputs.n }}' }, inputs: { n: 7 }, policy: POLICY, error: { code: 'AGENTCTL_E_TASK_INPUT_INVALID' } },
    { name: 'node not allowlisted', action: fixture('ok'), input: { value: 'a' }, policy: { processAllowlist: ['sh'] }, error: { code: 'AGENTCTL_E_POLICY_PROCESS_DENIED' } },
    { name: 'toolsDeny process.exec', action: fixture('ok'), input: { value: 'a' }, policy: { ...POLICY, toolsDeny: ['process.exec'] }, error: { code: 'AGENTCTL_E_POLICY_TOOL_DENIED' } },
    { name: 'a command that does not resolve fails preflight', action: fixture('ok', { command: 'agentctl-no-such-extension' }), input: { value: 'a' }, policy: POLICY, error: { code: 'AGENTCTL_E_COMMAND_NOT_FOUND' } },
  ],
});

describe('extension.process outcomes', () => {
  const workspace = useWorkspace();
  const run = (behaviour: string, fields: Record<string, unknown> = {}) => runAction('extension.process', { action: fixture(behaviour, fields), input: { value: 'hi' }, policy: POLICY, workspace: workspace.path });

  it('records one effect with the contract, the schema digests and the input digest; two launches named after it', async () => {
    const result = await run('ok');
    expect(result.state).to.equal('succeeded');
    expect(launches(result)).to.deep.equal(['ok --agentctl-handshake', 'ok --agentctl-invoke']);
    const effects = result.inspection!.effects;
    expect(effects.map((effect) => [effect.operation, effect.state])).to.deep.equal([['extension.invoke', 'succeeded']]);
    const input = effects[0]!.input as Record<string, any>;
    expect(input.protocolVersion).to.equal('agentctl.dev/process-extension/v1');
    expect(input.capabilities).to.deep.equal(['fixture.echo']);
    expect(input.args).to.deep.equal([FIXTURE, 'ok']);
    expect(input.executable).to.match(/\/node$/);
    expect(input.inputSchema).to.equal(input.outputSchema).and.to.match(/^sha256:[0-9a-f]{64}$/);
    expect(input.input).to.deep.equal({ bytes: 14, sha256: `sha256:${createHash('sha256').update('{"value":"hi"}').digest('hex')}` });
    expect(effects[0]!.result).to.deep.equal({ value: 'HI' });
  });

  it('a handshake whose outputSchema differs fails the effect, names the difference, and never invokes', async () => {
    const result = await run('handshake-differs');
    expect(result.code).to.equal('AGENTCTL_E_EXTENSION_HANDSHAKE');
    expect(result.diagnostics[0]!.message).to.contain('outputSchema differs at /properties/value/type: the action declares "string", the extension "number"');
    expect(result.inspection!.effects[0]!.state).to.equal('failed');
    expect(launches(result)).to.deep.equal(['handshake-differs --agentctl-handshake']);
  });

  it('other capabilities fail the handshake, naming the first one that differs', async () => {
    const result = await run('handshake-capabilities');
    expect(result.code).to.equal('AGENTCTL_E_EXTENSION_HANDSHAKE');
    expect(result.diagnostics[0]!.message).to.contain('capabilities differs at /0: the action declares "fixture.echo", the extension "fixture.other"');
    expect(launches(result)).to.have.length(1);
  });

  it('a handshake that exits non-zero is a definite failure with its stderr', async () => {
    const result = await run('handshake-exits');
    expect(result.code).to.equal('AGENTCTL_E_EXTENSION_HANDSHAKE');
    expect(result.diagnostics[0]!.message).to.contain('exited with status 5: cannot start');
    expect(result.inspection!.effects[0]!.state).to.equal('failed');
    expect(launches(result)).to.have.length(1);
  });

  for (const [behaviour, code, words] of [
    ['malformed', 'AGENTCTL_E_EXTENSION_RESPONSE', 'did not print one JSON document'],
    ['two-documents', 'AGENTCTL_E_EXTENSION_RESPONSE', 'did not print one JSON document'],
    ['other-effect', 'AGENTCTL_E_EXTENSION_RESPONSE', 'answers effect "eff_0000000000000000000000000000000000000000", not eff_'],
    ['bad-output', 'AGENTCTL_E_EXTENSION_OUTPUT_INVALID', "does not match the action's outputSchema: /value must be string"],
    ['invoke-exits', 'AGENTCTL_E_EXTENSION_RESPONSE', 'exited with status 3: it went wrong halfway'],
  ] as const) {
    it(`an invocation that goes wrong (${behaviour}) leaves the effect uncertain: ${code}`, async () => {
      const result = await run(behaviour);
      expect(result.code).to.equal(code);
      expect(result.diagnostics[0]!.message).to.contain(words);
      expect(result.inspection!.effects.map((effect) => effect.state)).to.deep.equal(['uncertain']);
      expect(launches(result)).to.have.length(2);
    });
  }

  it('an invocation that outlives its timeout is uncertain (the process code is kept)', async () => {
    const result = await run('slow', { timeoutSeconds: 1 });
    expect(result.code).to.equal('AGENTCTL_E_PROCESS_TIMEOUT');
    expect(result.inspection!.effects[0]!.state).to.equal('uncertain');
  });

  it('an output overflow during the invocation is uncertain, not failed', async () => {
    const result = await run('loud', { stdoutLimitBytes: 10000 });
    expect(result.code).to.equal('AGENTCTL_E_PROCESS_OUTPUT_LIMIT');
    expect(result.inspection!.effects[0]!.state).to.equal('uncertain');
  });

  it('redacts secret values before the response is parsed and recorded', async () => {
    const withEnv = await runAction('extension.process', {
      action: fixture('secret', { env: { TOKEN: { env: 'SOURCE' } } }),
      input: { value: 'hi' },
      policy: { ...POLICY, environmentAllowlist: ['TOKEN'] },
      environment: { SOURCE: 'canary-93be' },
    });
    expect(withEnv.output).to.deep.equal({ value: 'token=[REDACTED]' });
    expect(JSON.stringify(withEnv.inspection)).not.to.contain('canary-93be');
  });
});
