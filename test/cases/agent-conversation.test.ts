// The agent loop's conversation is its own frozen copy: a provider plugin through the real CLI entry sees a frozen
// request, and what it does later with a response it returned does not reach the conversation or the ledger.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { baseEnv, embeddedPackCli, parseDocument, type workspace } from '../support/cli.js';

// Turn 1 and 2 call echo; turn 2 first changes the content it returned at turn 1. Turn 3 answers with what it saw.
const PACK = `
import { definePlugin } from './sdk-copy/index.js';

let kept;
const seen = [];
const frozen = (value) => value === null || typeof value !== 'object' || (Object.isFrozen(value) && Object.values(value).every(frozen));

export default definePlugin({
  name: 'keeper-pack',
  version: '1.0.0',
  hostRange: '^0.1.0',
  description: 'A provider that keeps its answers and changes them later.',
  setup(api) {
    api.registerProvider({
      kind: 'keeper',
      description: 'Keeps what it returns.',
      capabilities: { tools: true, structuredOutput: false, reasoning: false, streaming: false },
      async call(request) {
        const turn = request.messages.filter((message) => message.role === 'assistant').length + 1;
        let refused = false;
        try {
          request.messages.push({ role: 'user', content: [] });
        } catch (error) {
          refused = error instanceof TypeError;
        }
        seen.push({ frozen: frozen(request), refused });
        const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
        if (turn === 2) kept[0].input.n = 99;
        if (turn <= 2) {
          kept = [{ type: 'tool_call', id: 'call_' + turn, name: 'echo', input: { n: turn } }];
          return { content: kept, finishReason: 'tool_calls', usage };
        }
        return { content: [{ type: 'text', text: JSON.stringify(seen) }], finishReason: 'complete', usage };
      },
    });
  },
});
`;

describe('the agent conversation', () => {
  let ws: ReturnType<typeof workspace>;
  let entry: string;

  before(() => {
    ({ ws, entry } = embeddedPackCli(PACK));
    const echo = { kind: 'builtin.echo', description: 'Returns its input.', inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false }, outputSchema: { type: 'object' } };
    const spec = {
      policy: { approval: 'never' },
      providers: { keeper: { kind: 'keeper' } },
      tools: { echo: { ...echo, capability: 'internal', risk: 'low', effectClass: 'pure', idempotency: 'pure', retrySafe: true, timeoutSeconds: 5 } },
      agents: { looper: { provider: 'keeper', model: 'k', instructions: 'Call echo.', tools: ['echo'], maxTurns: 3, maxToolCalls: 2 } },
      tasks: [{ id: 'loop', uses: 'agent:looper', with: { prompt: 'go' } }],
    };
    ws.write('wf.yaml', `${JSON.stringify({ apiVersion: 'agentctl.dev/v1', kind: 'Workflow', metadata: { name: 'conversation' }, spec })}\n`);
  });
  after(() => ws.cleanup());

  it('is frozen for the provider, and a response changed after it was returned stays as it was recorded', () => {
    const result = spawnSync(process.execPath, [entry, 'run', 'wf.yaml', '--db', ws.db, '--output', 'json'], { cwd: ws.dir, env: baseEnv(), encoding: 'utf8', timeout: 60_000 });
    expect(result.status, result.stderr).to.equal(0);
    expect(parseDocument(result.stdout).data.state).to.equal('succeeded');
    const db = new Database(ws.db, { readonly: true });
    try {
      const requests = (db.prepare(`SELECT input_json FROM effects WHERE operation = 'model.request' ORDER BY ordinal`).all() as { input_json: string }[]).map((row) => JSON.parse(row.input_json).request);
      expect(requests).to.have.length(3);
      // The third request holds the first answer as the provider returned it (n 1), not as it changed it later (n 99).
      expect(requests[2].messages[1]).to.deep.equal({ role: 'assistant', content: [{ type: 'tool_call', id: 'call_1', name: 'echo', input: { n: 1 } }] });
      const final = db.prepare(`SELECT result_json FROM effects WHERE operation = 'model.request' ORDER BY ordinal DESC LIMIT 1`).get() as { result_json: string };
      const seen = JSON.parse(JSON.parse(final.result_json).response.content[0].text);
      expect(seen).to.deep.equal([
        { frozen: true, refused: true },
        { frozen: true, refused: true },
        { frozen: true, refused: true },
      ]);
    } finally {
      db.close();
    }
  });
});
