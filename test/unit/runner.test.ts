import Database from 'better-sqlite3';
import { expect } from 'chai';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileText } from '../../core/compiler/compile.js';
import { executeRun } from '../../core/runner/run.js';
import { composeHost } from '../../core/cli/composition.js';
import { Store } from '../../core/store/store.js';
import { inspectRun } from '../../core/store/inspection.js';
import { z } from 'zod';
import { AgentctlError, defineActionKind, definePlugin, diagnostic, type PluginDefinition } from '@agentctl/sdk';
import { runAction } from '../../core/testing/index.js';

const document = `apiVersion: agentctl.dev/v1
kind: Workflow
metadata: { name: r }
spec:
  policy: { approval: never, writableRoots: [out] }
  actions:
    set: { kind: builtin.assign }
    save: { kind: builtin.write }
  tasks:
    - { id: a, uses: "action:set", with: { v: 1 } }
    - { id: w, uses: "action:save", needs: [a], with: { path: out/x.txt, content: "v=\${{ tasks.a.output.output.v }}" } }
  outputs: { v: "\${{ tasks.a.output.output.v }}" }
`;

async function run(plugins: PluginDefinition[]) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'agentctl-runner-')));
  const host = composeHost({ plugins });
  const store = Store.open(join(dir, 'db.sqlite'));
  try {
    const { plan } = await compileText(host, 'w.yaml', document);
    return await executeRun({ host, store, plan, file: 'w.yaml', source: document, workspaceRoot: dir, signal: new AbortController().signal, environment: {} });
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('runner and hooks', () => {
  it('a throwing commit observer becomes a warning and never changes the outcome', async () => {
    const observer = definePlugin({ name: 'observer', version: '1.0.0', hostRange: '*', setup: (api) => api.hooks.commit.tapPromise('observer', async () => { throw new Error('observer down'); }) });
    const result = await run([observer]);
    expect(result.state).to.equal('succeeded');
    expect(result.output).to.deep.equal({ v: 1 });
    expect(result.warnings!.length).to.be.greaterThan(0);
    expect(result.warnings![0]).to.include({ code: 'AGENTCTL_E_PLUGIN_FAILED', severity: 'warning' });
  });

  it('a third-party policy tap can deny an effect the builtin policy allows', async () => {
    const guard = definePlugin({
      name: 'guard',
      version: '1.0.0',
      hostRange: '*',
      setup: (api) =>
        api.hooks.policy.tapPromise({ stage: 'security' }, async (request) =>
          request.access.tool === 'filesystem.write' ? { decision: 'deny', diagnostic: diagnostic('AGENTCTL_E_POLICY_TOOL_DENIED', { message: 'no writes today' }) } : undefined,
        ),
    });
    const result = await run([guard]);
    expect(result.state).to.equal('failed');
    expect(result.error!.diagnostics[0]).to.include({ code: 'AGENTCTL_E_POLICY_TOOL_DENIED', message: 'no writes today', taskId: 'w' });
  });

  it('a policy tap that throws denies the effect (fail closed)', async () => {
    const broken = definePlugin({ name: 'broken', version: '1.0.0', hostRange: '*', setup: (api) => api.hooks.policy.tapPromise({ stage: 'security' }, async () => { throw new Error('policy backend down'); }) });
    const result = await runAction('builtin.read', { input: { path: 'x' } }, [broken]);
    expect(result.code).to.equal('AGENTCTL_E_POLICY_NO_VERDICT');
    expect(result.inspection!.effects).to.deep.equal([]);
  });

  it('a preflight report stops the run before any state exists', async () => {
    const gate = definePlugin({ name: 'gate', version: '1.0.0', hostRange: '*', setup: (api) => api.hooks.preflight.tapPromise('gate', async (context) => context.report(diagnostic('AGENTCTL_E_SECRET_MISSING', { message: 'no credentials' }))) });
    try {
      await run([gate]);
      expect.fail('expected preflight to fail');
    } catch (error) {
      expect((error as { code: string }).code).to.equal('AGENTCTL_E_SECRET_MISSING');
    }
  });

  it('a compile tap sees the plan and can refuse it', async () => {
    const lint = definePlugin({ name: 'lint', version: '1.0.0', hostRange: '*', setup: (api) => api.hooks.compile.tapPromise('lint', async (plan) => { if (plan.tasks.length > 1) throw new Error('too many tasks'); return plan; }) });
    try {
      await run([lint]);
      expect.fail('expected compile to fail');
    } catch (error) {
      expect((error as { code: string }).code).to.equal('AGENTCTL_E_COMPILE_REJECTED');
      expect((error as Error).message).to.contain('lint').and.to.contain('too many tasks');
    }
  });

  it('a plugin error that echoes a secret is redacted in the message and every diagnostic', async () => {
    const leaky = defineActionKind({
      name: 'test.leaky',
      version: '1.0.0',
      hostRange: '*',
      description: 'throws errors holding its secret',
      actionSchema: z.strictObject({ mode: z.enum(['plain', 'coded']) }),
      inputSchema: z.strictObject({}),
      effect: { effectClass: 'pure', risk: 'low', idempotency: 'pure' },
      secretReferences: () => [{ env: 'LEAKY' }],
      async dispatch(context) {
        const value = context.secrets.value({ env: 'LEAKY' });
        if (context.action.mode === 'plain') throw new Error(`bad token ${value}`);
        throw new AgentctlError('AGENTCTL_E_FILE_READ', `coded ${value}`, { diagnostics: [diagnostic('AGENTCTL_E_FILE_READ', { message: `diag ${value}`, help: `help ${value}` })] });
      },
    });
    for (const mode of ['plain', 'coded']) {
      const result = await runAction('test.leaky', { action: { mode }, environment: { LEAKY: 'leaky-canary-42' } }, [leaky]);
      expect(result.state).to.equal('failed');
      expect(JSON.stringify(result.diagnostics), mode).not.to.contain('leaky-canary-42');
      expect(JSON.stringify(result.inspection), mode).not.to.contain('leaky-canary-42');
      expect(JSON.stringify(result.diagnostics), mode).to.contain('[REDACTED]');
    }
  });

  it('a run that fails leaves nothing waiting: the paused task, its effect and its approval are cancelled', async () => {
    const text = `apiVersion: agentctl.dev/v1
kind: Workflow
metadata: { name: mixed }
spec:
  policy: { writableRoots: [out] }
  runtime: { maxConcurrency: 2 }
  actions:
    save: { kind: builtin.write }
    check: { kind: builtin.assert }
  tasks:
    - { id: save, uses: "action:save", with: { path: out/a.txt, content: x } }
    - { id: bad, uses: "action:check", with: { that: false } }
`;
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'agentctl-runner-')));
    const host = composeHost();
    const store = Store.open(join(dir, 'db.sqlite'));
    try {
      const { plan } = await compileText(host, 'w.yaml', text);
      const result = await executeRun({ host, store, plan, file: 'w.yaml', source: text, workspaceRoot: dir, signal: new AbortController().signal, environment: {} });
      expect(result.state).to.equal('failed');
      expect(result.tasks).to.deep.equal({ save: 'cancelled', bad: 'failed' });
      const view = inspectRun(store, result.runId);
      expect(view.tasks.map((task) => [task.taskId, task.state])).to.deep.equal([['save', 'cancelled'], ['bad', 'failed']]);
      expect(view.effects.map((effect) => effect.state)).to.deep.equal(['cancelled']);
      expect(view.approvals.map((approval) => approval.state)).to.deep.equal(['cancelled']);
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('effect intents of tasks side by side share one synced commit, and each is durable before its own dispatch', async () => {
    const log: string[] = [];
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'agentctl-runner-')));
    const store = Store.open(join(dir, 'db.sqlite'));
    // A second connection sees only what was committed: the effect a dispatch starts must already be there.
    const reader = new Database(join(dir, 'db.sqlite'), { readonly: true });
    // Each outermost durable transaction is one synced commit (a nested one is a savepoint of it).
    const synced = store.durableTransaction.bind(store);
    let depth = 0;
    store.durableTransaction = <T>(body: () => T): T => {
      depth += 1;
      try {
        const result = synced(body);
        if (depth === 1) log.push('sync');
        return result;
      } finally {
        depth -= 1;
      }
    };
    const probe = defineActionKind({
      name: 'test.probe',
      version: '1.0.0',
      hostRange: '*',
      description: 'one effect that looks for its own intent in the ledger',
      actionSchema: z.strictObject({}),
      inputSchema: z.strictObject({ n: z.number() }),
      effect: { effectClass: 'external_mutate', risk: 'low', idempotency: 'idempotent' },
      dispatch: (context) =>
        context.effect({ operation: 'probe.touch', input: { n: context.input.n }, access: { tool: 'probe.touch' } }, async () => {
          const row = reader.prepare(`SELECT e.state, t.state AS task FROM effects e JOIN tasks t USING (run_id, task_id) WHERE e.task_id = ?`).get(context.task.id);
          log.push(`dispatch ${context.task.id} ${JSON.stringify(row)}`);
          return { n: context.input.n };
        }),
    });
    const text = `apiVersion: agentctl.dev/v1
kind: Workflow
metadata: { name: side-by-side }
spec:
  policy: { approval: never }
  runtime: { maxConcurrency: 4 }
  actions:
    touch: { kind: test.probe }
  tasks:
    - { id: a, uses: "action:touch", with: { n: 1 } }
    - { id: b, uses: "action:touch", with: { n: 2 } }
    - { id: c, uses: "action:touch", with: { n: 3 } }
    - { id: d, uses: "action:touch", with: { n: 4 } }
    - { id: e, uses: "action:touch", with: { n: 5 }, needs: [a] }
`;
    try {
      const host = composeHost({ plugins: [probe] });
      const { plan } = await compileText(host, 'w.yaml', text);
      const result = await executeRun({ host, store, plan, file: 'w.yaml', source: text, workspaceRoot: dir, signal: new AbortController().signal, environment: {} });
      expect(result.state).to.equal('succeeded');
      const seen = (id: string) => `dispatch ${id} {"state":"started","task":"running"}`;
      // a-d start together: one commit and one sync holds their four intents; e starts after a committed.
      expect(log).to.deep.equal(['sync', seen('a'), seen('b'), seen('c'), seen('d'), 'sync', seen('e')]);
      expect(reader.prepare(`SELECT task_id, state FROM effects ORDER BY task_id`).all()).to.deep.equal(['a', 'b', 'c', 'd', 'e'].map((id) => ({ task_id: id, state: 'succeeded' })));
    } finally {
      reader.close();
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
