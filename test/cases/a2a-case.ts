// The harness of the a2a.delegate cases: a workspace, the local A2A peers a case starts (the last one is the peer the
// workflow names), the workflow document, and the CLI run against the workspace's database.
import { stringify } from 'yaml';
import { baseEnv, runCliAsync, workspace } from '../support/cli.js';
import { A2A_VERSION, startA2aServer, type A2aServerOptions, type A2aTestServer } from '../support/a2a-server.js';
import { rows } from './helpers.js';

export interface DocumentOptions {
  readonly peer?: Record<string, unknown>;
  readonly policy?: Record<string, unknown>;
  readonly network?: Record<string, unknown>;
  readonly task?: Record<string, unknown>;
  readonly with?: Record<string, unknown>;
  /** Tasks after the delegation, and the workflow's outputs. */
  readonly after?: Record<string, unknown>[];
  readonly outputs?: Record<string, string>;
}

export function useA2aCase() {
  const state = { ws: undefined as unknown as ReturnType<typeof workspace>, server: undefined as A2aTestServer | undefined, servers: [] as A2aTestServer[] };
  beforeEach(() => {
    state.ws = workspace();
  });
  afterEach(async () => {
    for (const started of state.servers.splice(0)) await started.close();
    state.server = undefined;
    state.ws.cleanup();
  });

  const document = (options: DocumentOptions = {}) =>
    stringify({
      apiVersion: 'agentctl.dev/v1alpha1',
      kind: 'Workflow',
      metadata: { name: 'a2a-probe' },
      spec: {
        policy: { approval: 'never', networkAllowlist: ['127.0.0.1'], network: { allowPrivate: true, ...options.network }, ...options.policy },
        a2aPeers: { local: { cardUrl: state.server?.cardUrl ?? 'http://127.0.0.1:9/.well-known/agent-card.json', protocolVersion: A2A_VERSION, timeoutSeconds: 5, pollIntervalMs: 20, ...options.peer } },
        ...(options.outputs ? { outputs: options.outputs } : {}),
        actions: { delegate: { kind: 'a2a.delegate' }, assign: { kind: 'builtin.assign' } },
        tasks: [{ id: 'delegate', uses: 'action:delegate', with: { peer: 'local', messageId: 'message-1', message: 'perform the bounded fixture task', ...options.with }, ...options.task }, ...(options.after ?? [])],
      },
    });
  const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => runCliAsync([...args, '--db', state.ws.db, '--output', 'json'], { cwd: state.ws.dir, env: baseEnv(env) });

  return {
    get ws() {
      return state.ws;
    },
    /** The peer the workflow names: the last one started. */
    get server(): A2aTestServer {
      return state.server!;
    },
    async start(options: A2aServerOptions = {}): Promise<A2aTestServer> {
      const started = await startA2aServer(options);
      state.servers.push(started);
      state.server = started;
      return started;
    },
    document,
    cli,
    run: (options?: DocumentOptions, env?: NodeJS.ProcessEnv) => cli(['run', state.ws.write('wf.yaml', document(options))], env),
    effects: () => rows(state.ws.db, 'SELECT id, state, operation, effect_class, idempotency FROM effects ORDER BY rowid'),
    /** How many SendMessage requests the peer got. */
    sent: () => state.server!.methods().filter((method) => method === 'SendMessage').length,
  };
}
