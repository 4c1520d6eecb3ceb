// Working memory through the real CLI: the reference examples, memory.KEY templates, compile-time write sets and
// their conflicts, and the run-time refusals (an undeclared write, a missing key, a value too large).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { ROOT, runCli, workspace } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome, rows } from './helpers.js';
import { memoryWorkflow } from './memory-workflow.js';

const REFERENCE = join(ROOT, 'test', 'compat', 'fixtures', 'reference');

describe('working memory', () => {
  let ws: ReturnType<typeof workspace>;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  const cli = (args: string[]) => runCli([...args, '--output', 'json'], { cwd: ws.dir });
  const run = (file: string, exit = 0, extra: string[] = []) => outcome(cli(['run', file, '--db', ws.db, ...extra]), exit);
  const inspect = (runId: string) => outcome(cli(['inspect', runId, '--db', ws.db]), 0).data;
  const outputs = (view: any) => Object.fromEntries(view.tasks.map((task: any) => [task.taskId, task.output]));
  const refused = (file: string, code: string) => {
    const document = errorDocument(cli(['check', file]), 2);
    expect(existsSync(ws.db)).to.equal(false);
    return diagnosticWithCode(document, code);
  };

  describe('the reference examples, unchanged', () => {
    it('working-memory.yaml: checks, plans the write set, runs to succeeded with counter 1 read back', () => {
      const file = join(REFERENCE, 'working-memory.yaml');
      outcome(cli(['check', file]), 0);
      const plan = outcome(cli(['plan', file]), 0).data;
      expect([plan.tasks.remember.memoryWrites, plan.tasks.recall.memoryWrites]).to.deep.equal([['counter'], []]);
      const humanPlan = runCli(['plan', file], { cwd: ws.dir });
      expect(humanPlan.stdout).to.match(/\. remember {2}builtin\.memory\.write {2}internal_state\/low .*\n {7}writes working memory counter\n/);
      const result = run(file);
      expect(result.data).to.deep.include({ state: 'succeeded', output: {}, tasks: { remember: 'succeeded', recall: 'succeeded' } });
      const view = inspect(result.data.runId);
      expect(view.run.workingMemory).to.deep.equal({ counter: 1 });
      expect(outputs(view)).to.deep.equal({ remember: { status: 'changed', changed: true, before: 0, after: 1, key: 'counter' }, recall: { status: 'unchanged', changed: false, value: 1 } });
      expect(view.effects.map((effect: any) => [effect.taskId, effect.operation, effect.state, effect.effectClass])).to.deep.equal([['remember', 'memory.write', 'succeeded', 'internal_state']]);
      expect(view.checkpoints.map((checkpoint: any) => checkpoint.state)).to.deep.equal([
        { task: 'remember', state: 'succeeded', memoryDelta: { counter: 1 } },
        { task: 'recall', state: 'succeeded' },
      ]);
      const human = runCli(['inspect', result.data.runId, '--db', ws.db], { cwd: ws.dir });
      expect(human.stdout).to.contain('  working memory:\n    counter = 1\n');
    });

    it('parallel.yaml: disjoint writes at maxConcurrency 2, both read back, memory holds the seed and both keys', () => {
      const file = join(REFERENCE, 'parallel.yaml');
      outcome(cli(['check', file]), 0);
      const plan = outcome(cli(['plan', file]), 0).data;
      expect(plan.order.map((id: string) => plan.tasks[id].memoryWrites)).to.deep.equal([['left'], ['right'], [], []]);
      const result = run(file);
      expect(result.data.state).to.equal('succeeded');
      const view = inspect(result.data.runId);
      expect(view.run.workingMemory).to.deep.equal({ seed: 'durable', left: 'one', right: 'two' });
      expect(outputs(view)['read-left']).to.deep.equal({ status: 'unchanged', changed: false, value: 'one' });
      expect(outputs(view)['read-right']).to.deep.equal({ status: 'unchanged', changed: false, value: 'two' });
      // Commits in compiled order, whichever finished first.
      expect(view.checkpoints.map((checkpoint: any) => checkpoint.taskId)).to.deep.equal(['write-left', 'write-right', 'read-left', 'read-right']);
    });
  });

  describe('templates and snapshots', () => {
    it('memory.KEY reads the snapshot taken when the task starts: the initial value before a write, the written value after it (transitively)', () => {
      const file = ws.write(
        'wf.yaml',
        memoryWorkflow({
          working: { counter: 0, profile: { name: 'ada' } },
          outputs: { final: '${{ memory.counter }}', name: '${{ memory.profile.name }}' },
          tasks: [
            { id: 'before', uses: 'action:set', with: { seen: '${{ memory.counter }}' } },
            { id: 'bump', uses: 'action:remember', needs: ['before'], with: { key: 'counter', value: 5 } },
            { id: 'middle', uses: 'action:set', needs: ['bump'], with: {} },
            { id: 'after', uses: 'action:set', needs: ['middle'], with: { seen: '${{ memory.counter }}', text: 'n=${{ memory.counter }}' } },
            { id: 'skipped', uses: 'action:set', needs: ['bump'], when: '${{ memory.counter == 0 }}' },
          ],
        }),
      );
      const result = run(file);
      expect(result.data.output).to.deep.equal({ final: 5, name: 'ada' });
      const view = outputs(inspect(result.data.runId));
      expect(view.before.output).to.deep.equal({ seen: 0 });
      expect(view.after.output).to.deep.equal({ seen: 5, text: 'n=5' });
      expect(result.data.tasks.skipped).to.equal('skipped');
    });

    it("a sub-workflow invocation's keys are its own: INVOCATION__KEY in the run's memory, KEY inside it, at maxConcurrency 2", () => {
      const subworkflows = {
        note: {
          version: '1.0.0',
          inputs: { text: '' },
          outputs: { seen: '${{ memory.text }}' },
          tasks: [
            { id: 'write', uses: 'action:remember', with: { key: 'text', value: '${{ inputs.text }}' }, memoryWrites: ['text'] },
            { id: 'read', uses: 'action:recall', needs: ['write'], with: { key: 'text' } },
          ],
        },
      };
      const file = ws.write(
        'wf.yaml',
        memoryWorkflow({
          runtime: { maxConcurrency: 2 },
          subworkflows,
          outputs: { one: '${{ tasks.call-one.output.seen }}', two: '${{ tasks.call-two.output.seen }}' },
          tasks: [
            { id: 'call-one', uses: 'workflow:note', with: { text: 'first' } },
            { id: 'call-two', uses: 'workflow:note', with: { text: 'second' } },
          ],
        }),
      );
      const plan = outcome(cli(['plan', file]), 0).data;
      expect(plan.tasks['call-one--write'].memoryWrites).to.deep.equal(['call_one__text']);
      const result = run(file);
      expect(result.data.output).to.deep.equal({ one: 'first', two: 'second' });
      const view = inspect(result.data.runId);
      expect(view.run.workingMemory).to.deep.equal({ call_one__text: 'first', call_two__text: 'second' });
      expect(outputs(view)['call-two--read'].value).to.equal('second');
    });

    it('a write the same task cannot see in its snapshot is still read by its dependents; an unchanged write says so', () => {
      const file = ws.write(
        'wf.yaml',
        memoryWorkflow({
          working: { mode: 'fast' },
          tasks: [
            { id: 'same', uses: 'action:remember', with: { key: 'mode', value: 'fast' } },
            { id: 'fresh', uses: 'action:remember', needs: ['same'], with: { key: 'note', value: { nested: [1, null] } } },
            { id: 'read', uses: 'action:recall', needs: ['fresh'], with: { key: 'note' } },
          ],
        }),
      );
      const view = inspect(run(file).data.runId);
      expect(outputs(view).same).to.deep.equal({ status: 'unchanged', changed: false, before: 'fast', after: 'fast', key: 'mode' });
      expect(outputs(view).read.value).to.deep.equal({ nested: [1, null] });
      expect(view.run.workingMemory).to.deep.equal({ mode: 'fast', note: { nested: [1, null] } });
    });
  });

  describe('compile-time checks (exit 2, no database)', () => {
    it('a memory.KEY template or a literal read key that nothing provides is AGENTCTL_E_MEMORY_KEY_UNKNOWN', () => {
      const template = refused(ws.write('a.yaml', memoryWorkflow({ tasks: [{ id: 'a', uses: 'action:set', with: { x: '${{ memory.notes }}' } }] })), 'AGENTCTL_E_MEMORY_KEY_UNKNOWN');
      expect(template.path).to.equal('spec.tasks[0].with.x');
      expect(template.message).to.contain('"notes"');
      refused(ws.write('b.yaml', memoryWorkflow({ tasks: [{ id: 'b', uses: 'action:recall', with: { key: 'notes' } }] })), 'AGENTCTL_E_MEMORY_KEY_UNKNOWN');
      // Written, but by a task the reader does not depend on: not provided.
      const unordered = memoryWorkflow({ tasks: [{ id: 'w', uses: 'action:remember', with: { key: 'k', value: 1 } }, { id: 'r', uses: 'action:recall', with: { key: 'k' } }] });
      expect(refused(ws.write('c.yaml', unordered), 'AGENTCTL_E_MEMORY_KEY_UNKNOWN').message).to.contain('task r reads working-memory key "k"');
      refused(ws.write('d.yaml', memoryWorkflow({ outputs: { x: '${{ memory.nothing }}' }, tasks: [{ id: 'a', uses: 'action:set' }] })), 'AGENTCTL_E_MEMORY_KEY_UNKNOWN');
      expect(refused(ws.write('e.yaml', memoryWorkflow({ tasks: [{ id: 'a', uses: 'action:set', when: '${{ memory.flag }}' }] })), 'AGENTCTL_E_MEMORY_KEY_UNKNOWN').path).to.equal('spec.tasks[0].when');
      // memory alone is not a reference to a key.
      refused(ws.write('f.yaml', memoryWorkflow({ tasks: [{ id: 'a', uses: 'action:set', with: { all: '${{ memory }}' } }] })), 'AGENTCTL_E_TEMPLATE_REFERENCE');
    });

    it('overlapping writes of unordered tasks fail at maxConcurrency 2, naming both tasks and the key; at 1 the later task wins', () => {
      const tasks = [
        { id: 'first', uses: 'action:remember', with: { key: 'shared', value: 'one' } },
        { id: 'second', uses: 'action:remember', with: { key: 'shared', value: 'two' } },
      ];
      const conflict = refused(ws.write('two.yaml', memoryWorkflow({ runtime: { maxConcurrency: 2 }, tasks })), 'AGENTCTL_E_MEMORY_WRITE_CONFLICT');
      expect(conflict.message).to.equal('tasks first and second may run at once (maxConcurrency 2, neither needs the other) and both write working-memory key "shared"');
      expect(conflict.path).to.equal('spec.tasks[1]');
      // Ordered with needs, the same writes are fine at 2.
      outcome(cli(['check', ws.write('ordered.yaml', memoryWorkflow({ runtime: { maxConcurrency: 2 }, tasks: [tasks[0]!, { ...tasks[1], needs: ['first'] }] }))]), 0);
      const sequential = ws.write('one.yaml', memoryWorkflow({ runtime: { maxConcurrency: 1 }, tasks }));
      outcome(cli(['check', sequential]), 0);
      expect(inspect(run(sequential).data.runId).run.workingMemory).to.deep.equal({ shared: 'two' });
    });

    it('a templated key needs memoryWrites; a literal key must be in it; only tasks that write memory take it', () => {
      const templated = { id: 'pick', uses: 'action:remember', with: { key: '${{ inputs.which }}', value: 1 } };
      const missing = refused(ws.write('a.yaml', memoryWorkflow({ inputs: { which: 'left' }, tasks: [templated] })), 'AGENTCTL_E_MEMORY_WRITES_INVALID');
      expect(missing.path).to.equal('spec.tasks[0].memoryWrites');
      refused(ws.write('b.yaml', memoryWorkflow({ tasks: [{ id: 'w', uses: 'action:remember', memoryWrites: ['other'], with: { key: 'k', value: 1 } }] })), 'AGENTCTL_E_MEMORY_WRITES_INVALID');
      refused(ws.write('c.yaml', memoryWorkflow({ tasks: [{ id: 'a', uses: 'action:set', memoryWrites: ['k'] }] })), 'AGENTCTL_E_MEMORY_WRITES_INVALID');
      refused(ws.write('d.yaml', memoryWorkflow({ tasks: [{ id: 'w', uses: 'action:remember', memoryWrites: ['k', 'k'], with: { key: 'k', value: 1 } }] })), 'AGENTCTL_E_SCHEMA');
      const router = { id: 'pick', uses: 'router', memoryWrites: ['k'], route: { select: '${{ inputs.which }}', cases: [{ equals: 'left', tasks: ['left'] }] } };
      const routed = memoryWorkflow({ inputs: { which: 'left' }, tasks: [router, { id: 'left', uses: 'action:set', needs: ['pick'] }] });
      expect(refused(ws.write('g.yaml', routed), 'AGENTCTL_E_MEMORY_WRITES_INVALID').message).to.equal('task pick is a router and writes no working memory of its own');
      // Declared: the plan shows the whole set, and the overlap check uses it.
      const declared = ws.write('e.yaml', memoryWorkflow({ inputs: { which: 'left' }, tasks: [{ ...templated, memoryWrites: ['right', 'left'] }] }));
      expect(outcome(cli(['plan', declared]), 0).data.tasks.pick.memoryWrites).to.deep.equal(['left', 'right']);
      const overlap = memoryWorkflow({ inputs: { which: 'left' }, runtime: { maxConcurrency: 2 }, tasks: [{ ...templated, memoryWrites: ['left', 'right'] }, { id: 'other', uses: 'action:remember', with: { key: 'right', value: 2 } }] });
      expect(refused(ws.write('f.yaml', overlap), 'AGENTCTL_E_MEMORY_WRITE_CONFLICT').message).to.contain('tasks pick and other');
    });
  });

  describe('run-time refusals (exit 4): the task fails and none of its writes is kept', () => {
    it('a rendered key outside memoryWrites is AGENTCTL_E_MEMORY_WRITE_UNDECLARED', () => {
      const file = ws.write('wf.yaml', memoryWorkflow({ inputs: { which: 'left' }, working: { left: 0 }, tasks: [{ id: 'pick', uses: 'action:remember', memoryWrites: ['left', 'right'], with: { key: '${{ inputs.which }}', value: 1 } }] }));
      expect(inspect(run(file, 0).data.runId).run.workingMemory).to.deep.equal({ left: 1 });
      const failed = errorDocument(cli(['run', file, '--db', ws.db, '--input', 'which=middle']), 4);
      expect(diagnosticWithCode(failed, 'AGENTCTL_E_MEMORY_WRITE_UNDECLARED').message).to.contain('task pick wrote working-memory key "middle", but its memoryWrites are left, right');
      const view = inspect(failed.error.runId);
      expect(view.run.workingMemory).to.deep.equal({ left: 0 });
      expect(view.tasks[0].failure.code).to.equal('AGENTCTL_E_MEMORY_WRITE_UNDECLARED');
      // Refused before the effect: nothing is recorded for the write.
      expect([view.tasks[0].stateDelta, view.checkpoints, view.effects]).to.deep.equal([null, [], []]);
    });

    it('reading a rendered key the snapshot lacks is AGENTCTL_E_MEMORY_KEY_MISSING', () => {
      const file = ws.write('wf.yaml', memoryWorkflow({ inputs: { which: 'there' }, working: { there: true }, tasks: [{ id: 'read', uses: 'action:recall', with: { key: '${{ inputs.which }}' } }] }));
      expect(outputs(inspect(run(file).data.runId)).read.value).to.equal(true);
      const failed = errorDocument(cli(['run', file, '--db', ws.db, '--input', 'which=gone']), 4);
      expect(diagnosticWithCode(failed, 'AGENTCTL_E_MEMORY_KEY_MISSING').message).to.contain('working memory has no key "gone"');
    });

    it('a value over 1 MiB is AGENTCTL_E_MEMORY_VALUE_TOO_LARGE; a failed task (its output refused) keeps no delta', () => {
      const file = ws.write(
        'wf.yaml',
        memoryWorkflow({
          policy: { processAllowlist: ['sh'], approval: 'never' },
          actions: { big: { kind: 'builtin.shell.exec', command: '/bin/sh', args: ['-c', 'head -c 1100000 /dev/zero | tr "\\0" x'], stdoutLimitBytes: 2097152, combinedOutputLimitBytes: 4194304 } },
          tasks: [
            { id: 'produce', uses: 'action:big' },
            { id: 'keep', uses: 'action:remember', needs: ['produce'], failure: 'continue', with: { key: 'blob', value: '${{ tasks.produce.output.stdout }}' } },
            { id: 'refused', uses: 'action:remember', failure: 'continue', outputSchema: { type: 'string' }, with: { key: 'small', value: 1 } },
          ],
        }),
      );
      // Both writers fail with failure: continue, so the run itself succeeds.
      const view = inspect(run(file, 0).data.runId);
      expect(view.tasks[1].error).to.contain('working-memory key "blob", more than 1048576');
      expect(view.tasks.map((task: any) => [task.taskId, task.state, task.failure?.code ?? null])).to.deep.equal([
        ['produce', 'succeeded', null],
        ['keep', 'failed', 'AGENTCTL_E_MEMORY_VALUE_TOO_LARGE'],
        ['refused', 'failed', 'AGENTCTL_E_TASK_OUTPUT_INVALID'],
      ]);
      expect(view.run.workingMemory).to.deep.equal({});
      expect(rows(ws.db, `SELECT memory_json FROM runs`)[0].memory_json).to.equal('{}');
    });
  });
});
