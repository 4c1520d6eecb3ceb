// The one-contribution helpers of the SDK and the test kit itself: what a pack author relies on must fail when it
// should, not only pass.
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertInvalid, assertValid } from '../../core/testing/action-kind-tester.js';
import { createTestHost, ProviderTester, runAction, SecretResolverTester, useDatabase, useWorkspace, type ActionResult } from '../../core/testing/index.js';
import { AgentctlError, defineIsolation, definePlugin, defineProvider, defineSecretResolver, defineTool, EffectFailure, isAgentctlError, z, type ModelProvider } from '@agentctl/sdk';
import { codeOf } from '../support/errors.js';

const identity = { version: '1.0.0', hostRange: '*' } as const;

/** The agentctl error a promise rejects with. */
async function rejection(promise: Promise<unknown>): Promise<AgentctlError> {
  const outcome = await promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`expected a rejection, got ${JSON.stringify(outcome.value)}`);
  if (!isAgentctlError(outcome.error)) throw outcome.error;
  return outcome.error;
}

/** A provider that posts the request's model to its endpoint and answers with the text the server sent. */
const echoProvider = (extra: Partial<ModelProvider> = {}) =>
  defineProvider({
    ...identity,
    plugin: 'acme-echo',
    kind: 'acme.echo',
    description: 'Posts the model name; answers with the reply text.',
    capabilities: { tools: false, structuredOutput: false, reasoning: false },
    async call(request, context) {
      const response = await context.network.request({
        url: `${context.provider.endpoint ?? 'https://echo.example'}/v1/echo`,
        method: 'POST',
        headers: { authorization: `Bearer ${context.credential}` },
        body: JSON.stringify({ model: request.model }),
        timeoutMs: context.timeoutMs,
        signal: context.signal,
      });
      if (response.status !== 200) throw new EffectFailure('failed', 'AGENTCTL_E_PROVIDER_REJECTED', `echo answered ${response.status}`);
      const text = (JSON.parse(response.body.toString('utf8')) as { text: string }).text;
      return { content: [{ type: 'text', text }], finishReason: 'complete', usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } };
    },
    ...extra,
  });

const vault = defineSecretResolver({
  ...identity,
  plugin: 'acme-vault',
  form: 'vault',
  description: 'Reads {vault: NAME} from VAULT_NAME in the environment.',
  async resolve(reference, context) {
    const value = context.environment[`VAULT_${String(reference.vault)}`];
    if (value === undefined) throw new AgentctlError('AGENTCTL_E_SECRET_MISSING', `vault entry ${String(reference.vault)} is missing`);
    return value;
  },
});

const sandbox = defineIsolation({
  ...identity,
  plugin: 'acme-sandbox',
  mode: 'acme-sandbox',
  description: 'Runs nothing.',
  resolveCommand: () => undefined,
  run: async () => {
    throw new Error('unused');
  },
});

const clock = defineTool({
  ...identity,
  plugin: 'acme-clock',
  kind: 'acme.clock',
  description: 'Tells the time.',
  access: () => ({}),
  run: async () => '12:00',
});

describe('one-contribution plugins', () => {
  it('defineProvider, defineSecretResolver, defineIsolation and defineTool register one key each, under their plugin name', () => {
    const host = createTestHost([echoProvider(), vault, sandbox, clock]);
    // The kit registers the plugins under test as the CLI registers the config's packs.
    const local = host.plugins().filter((plugin) => plugin.source === 'path');
    expect(local.map((plugin) => [plugin.name, [...plugin.providers, ...plugin.secretForms, ...plugin.isolationModes, ...plugin.toolKinds]])).to.deep.equal([
      ['acme-echo', ['acme.echo']],
      ['acme-vault', ['vault']],
      ['acme-sandbox', ['acme-sandbox']],
      ['acme-clock', ['acme.clock']],
    ]);
    expect(host.hasSecretForm('vault')).to.equal(true);
    expect(host.toolKind('acme.clock')!.description).to.equal('Tells the time.');
    expect(host.isolationMode('acme-sandbox')!.description).to.equal('Runs nothing.');
    // The contribution carries no plugin identity; the plugin carries no contribution fields.
    expect(Object.keys(clock.tool).sort()).to.deep.equal(['access', 'description', 'kind', 'run']);
    expect(sandbox).to.not.have.property('mode');
  });

  it('the plugin name defaults to the key, and a key another plugin owns is refused as registerX refuses it', () => {
    const unnamed = defineTool({ ...identity, kind: 'acme.unnamed', description: 'x', access: () => ({}), run: async () => null });
    expect(unnamed.name).to.equal('acme.unnamed');
    const process = defineIsolation({ ...identity, plugin: 'other-process', mode: 'process', description: 'x', resolveCommand: () => undefined, run: sandbox.isolation.run });
    expect(codeOf(() => createTestHost([process]))).to.equal('AGENTCTL_E_PACK_CONFLICT');
  });

  it('declares the error codes, and runs the extra setup after registering the contribution', () => {
    const seen: string[] = [];
    const withSetup = defineTool({
      ...identity,
      plugin: 'acme-extra',
      kind: 'acme.extra',
      description: 'x',
      errorCodes: { ACME_EXTRA_E_BROKEN: { exitCode: 4, description: 'Broken.' } },
      access: () => ({}),
      run: async () => null,
      setup: (api) => {
        // The contribution is registered first: registering the same key again is refused here.
        try {
          api.registerToolKind(withSetup.tool);
        } catch (error) {
          seen.push((error as AgentctlError).code);
        }
      },
    });
    const host = createTestHost([withSetup]);
    expect(seen).to.deep.equal(['AGENTCTL_E_PACK_CONFLICT']);
    expect(host.plugins().find((plugin) => plugin.name === 'acme-extra')).to.deep.include({ toolKinds: ['acme.extra'], errorCodes: ['ACME_EXTRA_E_BROKEN'] });
  });
});

describe('test kit: a pack is loaded the way the host loads it', () => {
  const upper = (plugin: string, name: string) =>
    definePlugin({
      ...identity,
      name: plugin,
      optionsSchema: z.strictObject({ suffix: z.string().default('!') }).prefault({}),
      setup(api) {
        const { suffix } = api.options as { suffix: string };
        api.registerActionKind({ name, description: 'x', actionSchema: z.strictObject({}), inputSchema: z.strictObject({ text: z.string() }), effect: { effectClass: 'pure', risk: 'low', idempotency: 'pure' }, dispatch: async ({ input }) => `${(input as { text: string }).text.toUpperCase()}${suffix}` });
      },
    });

  it('a kind not named after its pack is refused as the CLI refuses it, in createTestHost and runAction alike', async () => {
    expect(codeOf(() => createTestHost([upper('acme-upper', 'upper')]))).to.equal('AGENTCTL_E_PACK_NAMESPACE');
    const refused = await runAction('upper', { input: { text: 'a' } }, [upper('acme-upper', 'upper')]).then(() => undefined, (error: AgentctlError) => error);
    expect(refused?.code).to.equal('AGENTCTL_E_PACK_NAMESPACE');
    expect(refused?.diagnostics[0]!.help).to.equal("write the kind's name as 'acme-upper.upper' (the pack's name, a dot, then the kind's own name)");
  });

  it("a kind named after its pack runs, with the options its schema makes of none, as a config entry without options", async () => {
    const ran = await runAction('acme-upper.upper', { input: { text: 'a' } }, [upper('acme-upper', 'acme-upper.upper')]);
    expect(ran).to.deep.include({ state: 'succeeded', output: 'A!' });
    expect(createTestHost([upper('agentctl-pack-upper', 'upper.shout')]).plugins().at(-1)).to.deep.include({ name: 'agentctl-pack-upper', source: 'path', actionKinds: ['upper.shout'] });
  });
});

const result = (fields: Partial<ActionResult>): ActionResult => ({ state: 'failed', output: undefined, diagnostics: [], workspace: '/x', ...fields });
const failure = (code: string, message: string) => ({ code, severity: 'error' as const, message });

describe('test kit: ActionKindTester expectations', () => {
  it('a valid case fails on another state or another output, and compares outputs as JSON values', () => {
    expect(() => assertValid({ name: 'v' }, result({ state: 'failed', diagnostics: [failure('AGENTCTL_E_SCHEMA', 'bad')] }))).to.throw('expected success, got failed: AGENTCTL_E_SCHEMA: bad');
    expect(() => assertValid({ name: 'v', output: { a: 1 } }, result({ state: 'succeeded', output: { a: 2 } }))).to.throw('output {"a":2} differs from the expected {"a":1}');
    expect(() => assertValid({ name: 'v', output: { a: 1, b: [1] } }, result({ state: 'succeeded', output: { b: [1], a: 1 } }))).to.not.throw();
    expect(() => assertValid({ name: 'v', output: { a: 1 } }, result({ state: 'succeeded', output: { a: 1, b: 2 } }))).to.throw('differs');
  });

  it('an invalid case fails on success, on another code, and on a message that does not match', () => {
    const error = (code: string, message?: string | RegExp) => ({ name: 'i', error: { code, ...(message ? { message } : {}) } });
    expect(() => assertInvalid(error('AGENTCTL_E_SCHEMA'), result({ state: 'succeeded', output: 1 }))).to.throw('expected AGENTCTL_E_SCHEMA, but the action succeeded with 1');
    const failed = result({ diagnostics: [failure('AGENTCTL_E_PROCESS_EXIT', 'exited with status 3')] });
    expect(() => assertInvalid(error('AGENTCTL_E_SCHEMA'), failed)).to.throw('expected AGENTCTL_E_SCHEMA, got AGENTCTL_E_PROCESS_EXIT: exited with status 3');
    expect(() => assertInvalid(error('AGENTCTL_E_PROCESS_EXIT', 'status 4'), failed)).to.throw('expected a AGENTCTL_E_PROCESS_EXIT message matching status 4');
    expect(() => assertInvalid(error('AGENTCTL_E_PROCESS_EXIT', /status \d/), failed)).to.not.throw();
  });
});

describe('test kit: fixtures', () => {
  describe('useWorkspace', () => {
    const workspace = useWorkspace({ 'notes/a.txt': 'alpha', 'link.txt': { symlink: 'notes/a.txt' } });
    let first = '';
    it('creates a fresh workspace with the files before each test', () => {
      first = workspace.path;
      expect(readFileSync(join(first, 'link.txt'), 'utf8')).to.equal('alpha');
    });
    it('removes it after the test', () => {
      expect(existsSync(first)).to.equal(false);
      expect(workspace.path).to.not.equal(first);
    });
  });

  describe('useDatabase', () => {
    const database = useDatabase();
    let folder = '';
    it('keeps one ledger across runs that name it, and the run in it', async () => {
      folder = database.folder;
      const first = await runAction('builtin.assign', { input: { n: 1 }, database: database.path });
      const second = await runAction('builtin.assign', { input: { n: 2 }, database: database.path });
      expect([first.state, second.state]).to.deep.equal(['succeeded', 'succeeded']);
      expect(first.inspection!.run.runId).to.not.equal(second.inspection!.run.runId);
      expect(existsSync(database.path)).to.equal(true);
    });
    it('removes it after the test', () => {
      expect(existsSync(folder)).to.equal(false);
    });
  });
});

describe('test kit: ProviderTester', () => {
  it('calls the provider with a stub context whose network answers from a script and records each request', async () => {
    const tester = new ProviderTester(echoProvider(), { replies: [{ status: 200, body: { text: 'hi there' } }] });
    const response = await tester.call({ model: 'echo-1' });
    expect(response.content).to.deep.equal([{ type: 'text', text: 'hi there' }]);
    expect(tester.network.requests).to.deep.equal([
      { url: 'https://echo.example/v1/echo', method: 'POST', headers: { authorization: 'Bearer test-credential' }, body: { model: 'echo-1' }, timeoutMs: 5000 },
    ]);
  });

  it('with no reply left the network refuses as an absent server does; a status is the provider\'s to judge', async () => {
    const tester = new ProviderTester(echoProvider());
    const refused = await rejection(tester.call());
    expect([refused.code, (refused as unknown as { sent: boolean }).sent]).to.deep.equal(['AGENTCTL_E_NETWORK_CONNECT', false]);
    tester.network.reply({ status: 500, body: 'down' });
    expect((await rejection(tester.call())).code).to.equal('AGENTCTL_E_PROVIDER_REJECTED');
  });

  it('attributes what a provider throws to its plugin, as a run does', async () => {
    const broken = new ProviderTester(echoProvider({ call: async () => { throw new TypeError('oops'); } }));
    const error = await rejection(broken.call());
    expect(error.code).to.equal('AGENTCTL_E_PLUGIN_FAILED');
    expect(error.diagnostics[0]).to.include({ plugin: 'acme-echo', hook: 'provider:acme.echo' });
  });
});

describe('test kit: SecretResolverTester', () => {
  it('resolves a reference through the host\'s hook with the context a test gives', async () => {
    const tester = new SecretResolverTester(vault);
    expect(await tester.resolve({ vault: 'TOKEN' }, { environment: { VAULT_TOKEN: 'v-123' } })).to.equal('v-123');
    const missing = await rejection(tester.resolve({ vault: 'NONE' }));
    expect([missing.code, missing.diagnostics[0]!.plugin, missing.diagnostics[0]!.hook]).to.deep.equal(['AGENTCTL_E_SECRET_MISSING', 'acme-vault', 'secret:vault']);
    await tester.resolve({ env: 'X' }).then(
      () => expect.fail('resolved a form the plugin does not register'),
      (error: Error) => expect(error.message).to.equal('the plugin under test registers no secret form env'),
    );
  });
});
