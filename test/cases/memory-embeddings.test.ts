// Long-term memory that embeds through a spec.providers entry, through the real CLI: the openai kind against a
// loopback server speaking the embeddings wire format (writes, vector and hybrid search, broken and refusing answers,
// preflight of the credential and the network policy, a canary key that must reach only the Authorization header),
// the credential-free fake kind, replay without the provider, and vectors of another embedding that fail closed.
import { expect } from 'chai';
import { baseEnv, runCliAsync, workspace } from '../support/cli.js';
import { startEmbeddingsServer, type EmbeddingsServer } from '../support/embeddings-server.js';
import { assertNoCanary, diagnosticWithCode, errorDocument, outcome, rows, runCount, unique, workflow, type WorkflowSpec } from './helpers.js';

const JSON_OUT = ['--output', 'json'];
const ACTIONS = {
  write: { kind: 'builtin.long_term_memory.write' },
  search: { kind: 'builtin.long_term_memory.search' },
};
const MODEL = 'text-embedding-3-small';

type Spec = WorkflowSpec & { memory?: Record<string, unknown> };
const write = (id: string, key: string, value: string, metadata: Record<string, unknown> = {}) => ({ id, uses: 'action:write', with: { key, value, metadata } });
const search = (query: string, mode = 'vector', more: Record<string, unknown> = {}) => ({ id: 'search', uses: 'action:search', with: { query, mode, ...more } });

describe('long-term memory embeddings through a provider entry', function () {
  this.timeout(120_000);
  let ws: ReturnType<typeof workspace>;
  let server: EmbeddingsServer;
  let canary: string;
  const outputs: string[] = [];
  beforeEach(async () => {
    ws = workspace();
    server = await startEmbeddingsServer();
    canary = unique('sk-embed-canary-');
    outputs.length = 0;
  });
  afterEach(async () => {
    await server.close();
    ws.cleanup();
  });

  const port = () => Number(new URL(server.url).port);
  /** A workflow of memory tasks embedding through the `emb` entry (openai at the loopback server unless `providers` says otherwise). */
  const document = (tasks: Record<string, unknown>[], options: { embedding?: Record<string, unknown>; providers?: Record<string, unknown>; allowlist?: string[]; outputs?: Record<string, unknown> } = {}) =>
    workflow({
      policy: { approval: 'never', networkAllowlist: options.allowlist ?? ['127.0.0.1'], network: { allowedSchemes: ['http'], allowedPorts: [port()], allowPrivate: true } },
      providers: options.providers ?? { emb: { kind: 'openai', endpoint: server.url } },
      actions: ACTIONS,
      memory: { longTerm: { namespace: 'notes', embedding: options.embedding ?? { provider: 'emb', model: MODEL, dimensions: 16 } } },
      tasks,
      outputs: options.outputs ?? { results: '${{ tasks.search.output.results }}' },
    } as Spec);
  const cli = async (args: string[], env: NodeJS.ProcessEnv = { OPENAI_API_KEY: canary }) => {
    const database = args[0] === 'check' ? [] : ['--db', ws.db];
    const result = await runCliAsync([...args, ...database, ...JSON_OUT], { cwd: ws.dir, env: baseEnv(env) });
    outputs.push(result.stdout, result.stderr);
    return result;
  };
  const run = (name: string, text: string, env?: NodeJS.ProcessEnv) => cli(['run', ws.write(name, text)], env);
  const seed = async () =>
    outcome(await run('seed.yaml', document([write('a', 'alpha', 'invoices are sent monthly', { topic: 'billing' }), write('b', 'beta', 'the dog sleeps all day', { topic: 'pets' })], { outputs: {} })), 0);
  const keysOf = (result: any) => (result.data.output.results as any[]).map((hit) => hit.key);

  it('writes and vector/hybrid searches embed through POST /v1/embeddings with the model, the dimensions and the credential', async () => {
    await seed();
    expect(server.requests).to.have.length(2);
    const first = server.requests[0]! as any;
    expect(first.method).to.equal('POST');
    expect(first.path).to.equal('/v1/embeddings');
    expect(first.headers.authorization).to.equal(`Bearer ${canary}`);
    expect(first.body).to.deep.equal({ model: MODEL, input: ['invoices are sent monthly'], dimensions: 16, encoding_format: 'float' });
    // Each stored vector carries the identity that made it: the entry, the model, the dimensions (float32, base64).
    const stored = rows(ws.db, `SELECT memory_key, embedding_provider, embedding_model, embedding_dimensions, embedding FROM long_term_memory ORDER BY memory_key`);
    expect(stored.map(({ embedding, ...row }) => ({ ...row, bytes: Buffer.from(String(embedding), 'base64').length }))).to.deep.equal([
      { memory_key: 'alpha', embedding_provider: 'openai:emb', embedding_model: MODEL, embedding_dimensions: 16, bytes: 64 },
      { memory_key: 'beta', embedding_provider: 'openai:emb', embedding_model: MODEL, embedding_dimensions: 16, bytes: 64 },
    ]);

    const vector = outcome(await run('vector.yaml', document([search('monthly invoices')])), 0);
    expect(keysOf(vector)[0]).to.equal('alpha');
    expect(vector.data.output.results[0].score).to.be.greaterThan(0.5);
    expect((server.requests[2] as any).body.input).to.deep.equal(['monthly invoices']);

    const hybrid = outcome(await run('hybrid.yaml', document([search('dog', 'hybrid', { filters: { topic: 'pets' } })])), 0);
    expect(keysOf(hybrid)).to.deep.equal(['beta']);
    // A text search embeds nothing.
    const requests = server.requests.length;
    outcome(await run('text.yaml', document([search('dog', 'text')])), 0);
    expect(server.requests).to.have.length(requests);
    assertNoCanary(canary, ws.dir, ...outputs);
  });

  it('the embeddings URL is the sibling of a /responses endpoint, an /embeddings endpoint as written, or a base URL with /embeddings added', async () => {
    const origin = new URL(server.url).origin;
    for (const endpoint of [`${origin}/v1/embeddings`, `${origin}/proxy/v1/`]) {
      const providers = { emb: { kind: 'openai', endpoint } };
      outcome(await run('wf.yaml', document([write('a', 'alpha', 'invoices')], { providers, outputs: {} })), 0);
    }
    expect(server.requests.map((request) => request.path)).to.deep.equal(['/v1/embeddings', '/proxy/v1/embeddings']);
  });

  const failing = async (reply: Parameters<EmbeddingsServer['enqueue']>[0], code: string) => {
    server.enqueue(reply);
    const failed = errorDocument(await run('fail.yaml', document([write('a', 'alpha', 'invoices are sent monthly')], { outputs: {} })), 6);
    expect(diagnosticWithCode(failed, code)).to.include({ taskId: 'a' });
    // The write failed before anything was stored.
    expect(rows(ws.db, 'SELECT COUNT(*) AS n FROM long_term_memory')).to.deep.equal([{ n: 0 }]);
    return failed;
  };

  it('a vector of the wrong length, a number that is not finite, a 401 and a 5xx each fail the write with a stable code', async () => {
    const wrong = await failing({ vectors: [JSON.stringify([1, 2, 3])] }, 'AGENTCTL_E_PROVIDER_RESPONSE_INVALID');
    expect(diagnosticWithCode(wrong, 'AGENTCTL_E_PROVIDER_RESPONSE_INVALID').message).to.contain('3 numbers').and.contain('16 dimensions');
    const infinite = await failing({ vectors: [`[1e999${',0'.repeat(15)}]`] }, 'AGENTCTL_E_PROVIDER_RESPONSE_INVALID');
    expect(diagnosticWithCode(infinite, 'AGENTCTL_E_PROVIDER_RESPONSE_INVALID').message).to.contain('not a finite number');
    await failing({ vectors: [] }, 'AGENTCTL_E_PROVIDER_RESPONSE_INVALID');
    const refused = await failing({ error: 401, code: 'invalid_api_key' }, 'AGENTCTL_E_PROVIDER_REJECTED');
    expect(diagnosticWithCode(refused, 'AGENTCTL_E_PROVIDER_REJECTED').message).to.contain('401').and.contain('invalid_api_key');
    await failing({ error: 503, type: 'server_error' }, 'AGENTCTL_E_PROVIDER_UNAVAILABLE');
    await failing({ raw: 'not json' }, 'AGENTCTL_E_PROVIDER_RESPONSE_INVALID');
    assertNoCanary(canary, ws.dir, ...outputs);
  });

  it('an embedding request that gets no answer fails the write definitely at the task deadline, nothing in doubt', async () => {
    server.enqueue({ hang: true });
    const task = { ...write('a', 'alpha', 'invoices are sent monthly'), timeoutSeconds: 2 };
    const failed = errorDocument(await run('hang.yaml', document([task], { outputs: {} })), 4);
    expect(diagnosticWithCode(failed, 'AGENTCTL_E_TASK_TIMEOUT').message).to.contain('provider emb').and.contain('deadline of 2s');
    expect(rows(ws.db, 'SELECT state FROM effects')).to.deep.equal([{ state: 'failed' }]);
    expect(rows(ws.db, 'SELECT COUNT(*) AS n FROM long_term_memory')).to.deep.equal([{ n: 0 }]);
  });

  it('preflight needs the credential and an endpoint the network policy allows, before any run exists', async () => {
    const text = document([write('a', 'alpha', 'invoices')], { outputs: {} });
    const missing = errorDocument(await run('wf.yaml', text, {}), 6);
    expect(diagnosticWithCode(missing, 'AGENTCTL_E_PROVIDER_CREDENTIAL_MISSING').path).to.equal('spec.providers.emb.credential');
    const denied = errorDocument(await run('denied.yaml', document([write('a', 'alpha', 'invoices')], { allowlist: ['example.com'], outputs: {} })), 3);
    expect(denied.diagnostics[0].path).to.equal('spec.providers.emb');
    expect(denied.diagnostics[0].code).to.equal('AGENTCTL_E_NETWORK_DENIED');
    expect(server.requests).to.have.length(0);
    expect(runCount(ws.db)).to.equal(0);
  });

  it('a replay with the provider gone rebuilds the run from the recorded search, output unchanged', async () => {
    await seed();
    const source = outcome(await run('search.yaml', document([search('invoices monthly', 'hybrid')])), 0);
    expect(keysOf(source)[0]).to.equal('alpha');
    await server.close();
    const replay = outcome(await cli(['replay', source.data.runId], {}), 0);
    expect(replay.data).to.include({ state: 'succeeded', mode: 'replay' });
    expect(replay.data.output).to.deep.equal(source.data.output);
    assertNoCanary(canary, ws.dir, ...outputs);
  });

  it('a namespace written with local_hash fails closed when searched with a provider model, and so does another model or kind', async () => {
    outcome(await run('local.yaml', document([write('a', 'alpha', 'invoices are sent monthly')], { embedding: { provider: 'local_hash', dimensions: 16 }, outputs: {} })), 0);
    const mismatch = errorDocument(await run('search.yaml', document([search('invoices')])), 5);
    const found = diagnosticWithCode(mismatch, 'AGENTCTL_E_MEMORY_VECTOR_MISMATCH');
    expect(found.message).to.contain('local_hash').and.contain(`openai:emb/${MODEL}`);
    // Same entry and dimensions, another model: never compared either.
    outcome(await run('model.yaml', document([write('b', 'beta', 'the dog sleeps')], { outputs: {} })), 0);
    const other = errorDocument(await run('other.yaml', document([search('dog')], { embedding: { provider: 'emb', model: 'text-embedding-3-large', dimensions: 16 } })), 5);
    expect(diagnosticWithCode(other, 'AGENTCTL_E_MEMORY_VECTOR_MISMATCH').message).to.contain('text-embedding-3-large');
    // Same entry name, model and dimensions, another kind: the fake's vectors are not OpenAI's.
    const fake = errorDocument(await run('fake.yaml', document([search('dog')], { providers: { emb: { kind: 'fake' } } }), {}), 5);
    expect(diagnosticWithCode(fake, 'AGENTCTL_E_MEMORY_VECTOR_MISMATCH').message).to.contain(`fake:emb/${MODEL}`);
  });

  it('memory reindex --workflow moves a local_hash namespace to the provider model, checked first like a run', async () => {
    outcome(await run('local.yaml', document([write('a', 'alpha', 'invoices are sent monthly'), write('b', 'beta', 'the dog sleeps all day')], { embedding: { provider: 'local_hash', dimensions: 16 }, outputs: {} })), 0);
    const file = ws.write('target.yaml', document([search('x')]));
    // Without the credential nothing is re-embedded.
    const missing = errorDocument(await cli(['memory', 'reindex', 'notes', '--workflow', file], {}), 6);
    expect(missing.diagnostics[0].code).to.equal('AGENTCTL_E_PROVIDER_CREDENTIAL_MISSING');
    expect(rows(ws.db, `SELECT DISTINCT embedding_provider AS provider FROM long_term_memory`)).to.deep.equal([{ provider: 'local_hash' }]);

    const reindexed = outcome(await cli(['memory', 'reindex', 'notes', '--workflow', file]), 0);
    expect(reindexed.kind).to.equal('MemoryReindex');
    expect(reindexed.data).to.deep.include({ namespace: 'notes', reindexed: 2, embedding: { provider: 'openai:emb', model: MODEL, dimensions: 16 } });
    expect((server.requests[0] as any).body.input).to.deep.equal(['invoices are sent monthly', 'the dog sleeps all day']);
    const found = outcome(await run('search.yaml', document([search('sleeps dog')])), 0);
    expect(keysOf(found)[0]).to.equal('beta');
    assertNoCanary(canary, ws.dir, ...outputs);
  });

  it('doctor checks the credential of the entry long-term memory embeds through', async () => {
    const text = ws.write('wf.yaml', document([write('a', 'alpha', 'invoices')], { outputs: {} }));
    const doctor = async (env: NodeJS.ProcessEnv, code: number) => {
      const result = await runCliAsync(['doctor', text, ...JSON_OUT], { cwd: ws.dir, env: baseEnv(env) });
      outputs.push(result.stdout, result.stderr);
      return outcome(result, code).data;
    };
    const absent = await doctor({}, 6);
    expect(absent.ready).to.equal(false);
    expect((absent.checks as any[]).find((item) => item.check === 'provider:emb')).to.include({ available: false });
    const present = await doctor({ OPENAI_API_KEY: canary }, 0);
    expect((present.checks as any[]).find((item) => item.check === 'provider:emb')).to.include({ available: true });
    expect(server.requests).to.have.length(0);
    assertNoCanary(canary, ws.dir, ...outputs);
  });

  it('the fake kind embeds deterministically without a credential or network', async () => {
    const providers = { emb: { kind: 'fake' } };
    const embedding = { provider: 'emb', model: 'fake-embed', dimensions: 32 };
    const seeded = document([write('a', 'alpha', 'invoices are sent monthly'), write('b', 'beta', 'the dog sleeps all day')], { providers, embedding, outputs: {} });
    outcome(await run('seed.yaml', seeded, {}), 0);
    const vectors = () => rows(ws.db, 'SELECT memory_key, hex(embedding) AS vector, embedding_provider, embedding_model FROM long_term_memory ORDER BY memory_key');
    const first = vectors();
    expect(first.map((row) => [row.memory_key, row.embedding_provider, row.embedding_model])).to.deep.equal([
      ['alpha', 'fake:emb', 'fake-embed'],
      ['beta', 'fake:emb', 'fake-embed'],
    ]);
    outcome(await run('again.yaml', seeded, {}), 0);
    expect(vectors()).to.deep.equal(first);
    const found = outcome(await run('search.yaml', document([search('sleeping dog sleeps')], { providers, embedding }), {}), 0);
    expect(keysOf(found)).to.deep.equal(['beta']);
    expect(server.requests).to.have.length(0);
  });

  it('check refuses an embedding entry whose kind cannot embed, an unknown entry and a missing model', async () => {
    const checkError = async (text: string) => errorDocument(await cli(['check', ws.write('check.yaml', text)]), 2);
    const anthropic = await checkError(document([search('x')], { providers: { emb: { kind: 'anthropic' } } }));
    const item = diagnosticWithCode(anthropic, 'AGENTCTL_E_MEMORY_EMBEDDING_UNSUPPORTED');
    expect(item.path).to.equal('spec.memory.longTerm.embedding.provider');
    expect(item.message).to.contain('anthropic');
    // The help names the registered kinds that do embed.
    expect(item.help).to.contain('fake').and.contain('openai');
    diagnosticWithCode(await checkError(document([search('x')], { embedding: { provider: 'nowhere', model: MODEL } })), 'AGENTCTL_E_MEMORY_EMBEDDING_UNSUPPORTED');
    const noModel = diagnosticWithCode(await checkError(document([search('x')], { embedding: { provider: 'emb' } })), 'AGENTCTL_E_MEMORY_EMBEDDING_UNSUPPORTED');
    expect(noModel.path).to.equal('spec.memory.longTerm.embedding.model');
    expect(outcome(await cli(['check', ws.write('ok.yaml', document([search('x')]))]), 0).data.valid).to.equal(true);
  });
});
