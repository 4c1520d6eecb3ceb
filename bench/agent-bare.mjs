// The bare side of benchmark figure (i): the agent loop of a `fake` agent with no framework, writing what agentctl's
// ledger writes per model turn and per tool call, with the same commits and syncs. Also the agent definition both
// sides share, so the recorded requests are the same bytes.
//
//   node bench/agent-bare.mjs DB TURNS      prints {"loopMs": ...}: the loop's own time, for information
//
// Per effect, as core/runner/effects.ts and core/store/store.ts do it (WAL, `synchronous = NORMAL`):
//   1. the `requested` row and its audit event, in one IMMEDIATE transaction under `synchronous = FULL` (the only
//      commit that syncs: the intent is durable before dispatch);
//   2. `started` and its audit event, one transaction;
//   3. the outcome (the result JSON) and its audit event, one transaction.
// A model turn records its whole request (the conversation so far, the tools, the provider options) and its
// response; a tool call records {tool, kind, callId, input} and the echoed input.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The agent of both sides: TURNS - 1 turns of one echo call each, then a final text. */
export function agentSpec(turns) {
  const script = [];
  for (let i = 1; i < turns; i++) script.push({ toolCalls: [{ tool: 'echo', input: { n: i } }] });
  script.push({ text: 'done' });
  return {
    name: 'looper',
    providerName: 'scripted',
    model: 'scripted',
    instructions: 'Call echo until the script ends.',
    tool: {
      name: 'echo',
      kind: 'builtin.echo',
      description: 'Returns its input.',
      inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false },
    },
    maxTurns: 50,
    maxToolCalls: 49,
    maxOutputTokens: 2048,
    providerOptions: { turns: script },
  };
}

/** The workflow of the agentctl side, as JSON text (which is YAML). */
export function agentWorkflow(turns) {
  const agent = agentSpec(turns);
  const { name, kind, description, inputSchema } = agent.tool;
  return `${JSON.stringify({
    apiVersion: 'agentctl.dev/v1',
    kind: 'Workflow',
    metadata: { name: `bench-agent-${turns}` },
    spec: {
      policy: { approval: 'never' },
      providers: { [agent.providerName]: { kind: 'fake' } },
      tools: {
        [name]: { kind, description, inputSchema, outputSchema: { type: 'object' }, capability: 'internal', risk: 'low', effectClass: 'pure', idempotency: 'pure', retrySafe: true, timeoutSeconds: 5 },
      },
      agents: {
        [agent.name]: {
          provider: agent.providerName,
          model: agent.model,
          instructions: agent.instructions,
          tools: [name],
          maxTurns: agent.maxTurns,
          maxToolCalls: agent.maxToolCalls,
          providerOptions: agent.providerOptions,
        },
      },
      tasks: [{ id: 'loop', uses: `agent:${agent.name}`, with: { prompt: 'go' } }],
    },
  })}\n`;
}

// The tables as agentctl's migrations create them (columns, STRICT, keys and indexes), without the runs and tasks
// tables the foreign keys of agentctl's effects refer to.
const SCHEMA = `
  CREATE TABLE effects (
    id TEXT PRIMARY KEY, run_id TEXT NOT NULL, task_id TEXT NOT NULL, attempt INTEGER NOT NULL, ordinal INTEGER NOT NULL,
    kind TEXT NOT NULL, operation TEXT NOT NULL, effect_class TEXT NOT NULL, risk TEXT NOT NULL, idempotency TEXT NOT NULL,
    input_json TEXT NOT NULL, input_digest TEXT NOT NULL, state TEXT NOT NULL, result_json TEXT, error_json TEXT,
    requested_at TEXT NOT NULL, started_at TEXT, finished_at TEXT, updated_at TEXT NOT NULL,
    UNIQUE (run_id, task_id, attempt, ordinal)
  ) STRICT;
  CREATE INDEX effects_by_state ON effects(state);
  CREATE TABLE audit_events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL, task_id TEXT, effect_id TEXT, type TEXT NOT NULL,
    data_json TEXT NOT NULL, at TEXT NOT NULL
  ) STRICT;
  CREATE INDEX audit_by_run ON audit_events(run_id, seq);`;

const MODEL_PROFILE = { effectClass: 'model', risk: 'medium', idempotency: 'at_most_once' };
const ECHO_PROFILE = { effectClass: 'pure', risk: 'low', idempotency: 'pure' };
const USAGE = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };

/** Runs the loop of `turns` model turns into a new database at `path`; returns the loop's own milliseconds. */
export function bareLoop(path, turns) {
  const Database = createRequire(join(ROOT, 'package.json'))('better-sqlite3');
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(SCHEMA);
  const insertEffect = db.prepare(`INSERT INTO effects (id, run_id, task_id, attempt, ordinal, kind, operation, effect_class, risk, idempotency,
    input_json, input_digest, state, requested_at, updated_at) VALUES (?, ?, 'loop', 1, ?, 'agent', ?, ?, ?, ?, ?, ?, 'requested', ?, ?)`);
  const started = db.prepare(`UPDATE effects SET state = 'started', started_at = ?, updated_at = ? WHERE id = ?`);
  const finished = db.prepare(`UPDATE effects SET state = 'succeeded', result_json = ?, finished_at = ?, updated_at = ? WHERE id = ?`);
  const audit = db.prepare(`INSERT INTO audit_events (run_id, task_id, effect_id, type, data_json, at) VALUES (?, 'loop', ?, ?, ?, ?)`);
  const syncFull = db.prepare('PRAGMA synchronous = FULL');
  const syncNormal = db.prepare('PRAGMA synchronous = NORMAL');
  const runId = 'run_bare';
  const now = () => new Date().toISOString();
  let ordinal = 0;

  /** One effect: the synced intent, `started`, the work, the outcome. */
  const effect = (operation, profile, input, work) => {
    ordinal += 1;
    const inputJson = JSON.stringify(input);
    const id = `eff_${ordinal}`;
    syncFull.run();
    db.transaction(() => {
      const at = now();
      insertEffect.run(id, runId, ordinal, operation, profile.effectClass, profile.risk, profile.idempotency, inputJson, createHash('sha256').update(inputJson).digest('hex'), at, at);
      audit.run(runId, id, 'effect.requested', JSON.stringify({ operation }), at);
    }).immediate();
    syncNormal.run();
    db.transaction(() => {
      const at = now();
      started.run(at, at, id);
      audit.run(runId, id, 'effect.started', '{}', at);
    }).immediate();
    const result = work();
    db.transaction(() => {
      const at = now();
      finished.run(JSON.stringify(result), at, at, id);
      audit.run(runId, id, 'effect.succeeded', '{}', at);
    }).immediate();
    return result;
  };

  const agent = agentSpec(turns);
  const { name, description, inputSchema } = agent.tool;
  const tools = [{ name, description, inputSchema }];
  const messages = [{ role: 'user', content: [{ type: 'text', text: 'go' }] }];
  const begun = performance.now();
  for (let turn = 1; ; turn += 1) {
    const request = { model: agent.model, instructions: agent.instructions, messages: [...messages], tools, maxOutputTokens: agent.maxOutputTokens, options: agent.providerOptions };
    const input = { agent: agent.name, provider: agent.providerName, kind: 'fake', turn, attempt: 1, sequence: turn, request };
    const { response } = effect('model.request', MODEL_PROFILE, input, () => ({ response: answer(agent, turn) }));
    const calls = response.content.filter((block) => block.type === 'tool_call');
    if (calls.length === 0) break;
    messages.push({ role: 'assistant', content: response.content });
    const results = calls.map((call) => {
      const output = effect('tool.call', ECHO_PROFILE, { tool: call.name, kind: agent.tool.kind, callId: call.id, input: call.input }, () => call.input);
      return { type: 'tool_result', callId: call.id, name: call.name, output };
    });
    messages.push({ role: 'tool', content: results });
  }
  const loopMs = performance.now() - begun;
  db.close();
  return loopMs;
}

/** The fake provider's answer to turn `turn` (1-based), as builtins/provider-fake answers a script. */
function answer(agent, turn) {
  const scripted = agent.providerOptions.turns[turn - 1];
  const base = { usage: USAGE, responseId: `fake-response-${turn}`, model: agent.model };
  if ('text' in scripted) return { content: [{ type: 'text', text: scripted.text }], finishReason: 'complete', ...base };
  const content = scripted.toolCalls.map((call, position) => ({ type: 'tool_call', id: `call_${turn}_${position + 1}`, name: call.tool, input: call.input }));
  return { content, finishReason: 'tool_calls', ...base };
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const [path, turns] = process.argv.slice(2);
  console.log(JSON.stringify({ loopMs: bareLoop(path, Number(turns)) }));
}
