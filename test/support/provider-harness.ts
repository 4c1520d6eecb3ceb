// The scaffolding of a provider kind's unit tests: the provider through a real Host, the policy network client opened
// to 127.0.0.1, a local server speaking the kind's wire format per test, and a canary credential that must reach the
// kind's authentication header and nothing else (checked after every passing test).
import { expect } from 'chai';
import networkPlugin from '../../builtins/network-policy/plugin.js';
import { Host } from '../../core/host.js';
import { isEffectFailure, type EffectFailure, type ModelProvider, type ModelRequest, type NetworkClient, type PluginDefinition, type ProviderCallContext } from '@agentctl/sdk';

export interface RecordingServer {
  readonly url: string;
  /** Queues replies; `{hang: true}` never answers until the server closes. */
  enqueue(...replies: { hang: true }[]): void;
  readonly requests: readonly { readonly path: string; readonly headers: Readonly<Record<string, string>>; readonly body: unknown }[];
  close(): Promise<void>;
}

export interface HarnessOptions<Server extends RecordingServer> {
  readonly plugin: PluginDefinition;
  readonly kind: string;
  readonly start: () => Promise<Server>;
  readonly canary: string;
  /** The header that must carry the credential, exactly as the server sees it (lower case). */
  readonly authHeader: string;
  readonly authValue: (credential: string) => string;
  /** The entry's own headers: a same-named one must never replace the credential's. */
  readonly headers: Readonly<Record<string, string>>;
  readonly model: string;
  readonly providerName?: string;
}

export interface Harness<Server extends RecordingServer> {
  readonly provider: ModelProvider;
  readonly server: Server;
  context(overrides?: Partial<ProviderCallContext>): ProviderCallContext;
  request(overrides?: Partial<ModelRequest>): ModelRequest;
  /** The EffectFailure a call ends with (asserted to be one); its text is scanned for the canary afterwards. */
  failure(promise: Promise<unknown>): Promise<EffectFailure>;
  /**
   * Adds the cases every HTTP provider shares through `postProviderJson`: a request that gets no answer within
   * `timeoutMs` is uncertain; a refused connection is a definite failure with the network's code.
   */
  transportCases(): void;
}

/** Registers the hooks in the calling `describe` and returns the live fixtures. */
export function providerHarness<Server extends RecordingServer>(options: HarnessOptions<Server>): Harness<Server> {
  let provider: ModelProvider;
  let network: NetworkClient;
  let server: Server;
  let failures: EffectFailure[] = [];
  before(() => {
    const host = new Host();
    host.register(options.plugin);
    host.register(networkPlugin);
    host.ready();
    provider = host.provider(options.kind)!;
    network = host.networkClientFactory()!({ allowlist: ['127.0.0.1'], allowedSchemes: ['http'], allowedPorts: [], connectTimeoutSeconds: 5, maxResponseBytes: 64 * 1024 * 1024, allowPrivate: true, allowProxy: false });
  });
  beforeEach(async () => {
    server = await options.start();
    failures = [];
  });
  afterEach(async function () {
    await server.close();
    if (this.currentTest?.state !== 'passed') return;
    for (const request of server.requests) {
      expect(request.headers[options.authHeader]).to.equal(options.authValue(options.canary));
      const { [options.authHeader]: _auth, ...others } = request.headers;
      expect(JSON.stringify([request.path, others, request.body])).not.to.contain(options.canary);
    }
    for (const failure of failures) expect(JSON.stringify([failure.message, failure.diagnostics, failure.details])).not.to.contain(options.canary);
  });
  return {
    get provider() {
      return provider;
    },
    get server() {
      return server;
    },
    context: (overrides = {}) => ({
      provider: { name: options.providerName ?? 'main', kind: options.kind, endpoint: server.url },
      credential: options.canary,
      headers: options.headers,
      network,
      signal: new AbortController().signal,
      timeoutMs: 5000,
      effectId: 'eff_0123456789abcdef0123456789abcdef01234567',
      sequence: 1,
      ...overrides,
    }),
    request: (overrides = {}) => ({
      model: options.model,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Summarise a.txt' }] }],
      tools: [],
      maxOutputTokens: 256,
      options: {},
      ...overrides,
    }),
    transportCases() {
      it('reports a request that got no answer within timeoutMs as uncertain AGENTCTL_E_PROVIDER_UNCERTAIN', async () => {
        server.enqueue({ hang: true });
        const started = Date.now();
        const uncertain = await this.failure(provider.call(this.request(), this.context({ timeoutMs: 300 })));
        expect(Date.now() - started).to.be.within(290, 3000);
        expect([uncertain.outcome, uncertain.code]).to.deep.equal(['uncertain', 'AGENTCTL_E_PROVIDER_UNCERTAIN']);
        expect(server.requests).to.have.length(1);
      });
      it('reports a refused connection as failed with the network code: nothing was sent', async () => {
        const closed = await options.start();
        await closed.close();
        const refused = await this.failure(provider.call(this.request(), this.context({ provider: { name: 'main', kind: options.kind, endpoint: closed.url } })));
        expect([refused.outcome, refused.code]).to.deep.equal(['failed', 'AGENTCTL_E_NETWORK_CONNECT']);
      });
    },
    async failure(promise) {
      try {
        await promise;
      } catch (error) {
        expect(isEffectFailure(error), String(error)).to.equal(true);
        failures.push(error as EffectFailure);
        return error as EffectFailure;
      }
      return expect.fail('expected the call to fail');
    },
  };
}
