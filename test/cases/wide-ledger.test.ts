// Process tasks side by side keep the ledger's order: each effect's intent is committed (and synced) before its
// process starts, its `started` mark before its outcome, and task outcomes commit in plan order, whatever the width.
// Real CLI, real processes, a real database.
import { expect } from 'chai';
import { runCli, workspace } from '../support/cli.js';
import { outcome, rows, workflow } from './helpers.js';

type Workspace = ReturnType<typeof workspace>;

describe('run driver: many process tasks side by side', () => {
  let ws: Workspace;
  afterEach(() => ws.cleanup());

  for (const width of [1, 8]) {
    it(`48 independent /bin/true tasks at maxConcurrency ${width}: every effect requested, started, succeeded in that order, outcomes in plan order`, () => {
      ws = workspace();
      const ids = Array.from({ length: 48 }, (_, index) => `t${index + 1}`);
      ws.write(
        'wf.yaml',
        workflow({
          policy: { processAllowlist: ['true'], approval: 'never' },
          runtime: { maxConcurrency: width },
          actions: { ok: { kind: 'builtin.shell.exec', command: '/bin/true' } },
          tasks: ids.map((id) => ({ id, uses: 'action:ok' })),
        }),
      );
      const result = outcome(runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json'], { cwd: ws.dir }), 0);
      expect(result.data.state).to.equal('succeeded');
      expect(Object.values(result.data.tasks)).to.deep.equal(ids.map(() => 'succeeded'));
      expect(rows(ws.db, `SELECT state, COUNT(*) AS n FROM effects GROUP BY state`)).to.deep.equal([{ state: 'succeeded', n: ids.length }]);

      const trail = rows(ws.db, `SELECT type, task_id, effect_id FROM audit_events ORDER BY seq`);
      expect(trail[0]!.type).to.equal('run.started');
      expect(trail.at(-1)!.type).to.equal('run.succeeded');
      for (const id of ids) {
        // Each task's own events, in the order they were appended: running with its intent, then start, outcome, commit.
        const own = trail.filter((event) => event.task_id === id).map((event) => event.type);
        expect(own, id).to.deep.equal(['task.running', 'effect.requested', 'effect.started', 'effect.succeeded', 'task.succeeded']);
      }
      expect(trail.filter((event) => event.type === 'task.succeeded').map((event) => event.task_id)).to.deep.equal(ids);
      // Every effect's intent precedes its start in the ledger, and its start its outcome (requested_at <= started_at <= finished_at).
      const times = rows(ws.db, `SELECT task_id, requested_at, started_at, finished_at FROM effects`);
      for (const row of times) {
        expect(Date.parse(row.requested_at), String(row.task_id)).to.be.at.most(Date.parse(row.started_at));
        expect(Date.parse(row.started_at), String(row.task_id)).to.be.at.most(Date.parse(row.finished_at));
      }
    });
  }
});
