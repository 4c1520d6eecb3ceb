// The run reporters' renderers on synthetic inspection documents: escaping, folding and truncation, empty sections,
// a run without tasks, size bounds on large runs, and the same output for the same document.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { validateXML } from 'xmllint-wasm';
import { GRAPH_LIMIT } from '../../builtins/reporter-html/graph.js';
import { esc, VALUE_LIMIT } from '../../builtins/reporter-html/html.js';
import { renderHtml } from '../../builtins/reporter-html/render.js';
import { TIMELINE_LIMIT } from '../../builtins/reporter-html/timeline.js';
import { renderJunit, xml } from '../../builtins/reporter-junit/render.js';
import { renderMarkdown, ROW_LIMIT } from '../../builtins/reporter-markdown/render.js';
import { ROOT } from '../support/cli.js';
import { at, chain, effect, inspection, task } from '../support/run-inspection.js';

const HOSTILE = '<script>alert("x")</script>&amp; \'q\' </pre> ]]> <!-- \u0007bell \u001b[31mred';
const JUNIT_XSD = readFileSync(join(ROOT, 'test', 'fixtures', 'junit', 'junit.xsd'), 'utf8');
const validate = (text: string) => validateXML({ xml: [{ fileName: 'report.xml', contents: text }], schema: [JUNIT_XSD] });

describe('report renderers', () => {
  describe('html', () => {
    it('escapes every recorded text: task ids, errors, effect requests and results, approval reasons, workflow name', () => {
      const hostileTask = task({ id: 'bad', state: 'failed', error: HOSTILE, failure: { code: 'AGENTCTL_E_PROCESS_EXIT', message: HOSTILE } });
      const page = renderHtml(
        inspection([hostileTask], [], {
          effects: [effect('eff_1', 'bad', { input: { command: HOSTILE }, result: { stdout: HOSTILE }, error: HOSTILE })],
          approvals: [{ approvalId: 'apr_1', taskId: 'bad', operation: 'process.exec', risk: 'high', reason: HOSTILE, status: 'approved', actor: HOSTILE, decisionReason: HOSTILE, requestedAt: at(5), decidedAt: at(9) }],
          artifacts: [{ logicalPath: HOSTILE, taskId: 'bad', mediaType: 'text/plain', digest: 'sha256:00', sourceRunId: null, sizeBytes: 3 }],
        }, { workflowName: HOSTILE }),
      );
      expect(page).to.not.contain('<script');
      expect(page).to.not.contain('</pre> ]]>');
      expect(page).to.not.contain('\u0007').and.not.contain('\u001b');
      expect(page).to.contain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;amp; &#39;q&#39;');
      // Only the page's own elements: one <pre> per folded value, closed by the page.
      expect(page.match(/<pre>/g)!.length).to.equal(page.match(/<\/pre>/g)!.length);
      expect(esc('a\u0000b\tc\nd')).to.equal('ab\tc\nd');
    });

    it('folds each request and result in a <details> that says its size, and cuts a value beyond the limit saying how much it had', () => {
      const big = 'x'.repeat(VALUE_LIMIT * 3);
      const page = renderHtml(inspection([task({ id: 'a' })], [], { effects: [effect('eff_big', 'a', { result: { stdout: big } })] }));
      expect(page).to.match(/<details><summary>request <span class="size">\(\d+ B\)<\/span><\/summary>/);
      expect(page).to.contain('<details><summary>result <span class="size">(12.0 KiB)</span></summary>');
      expect(page).to.match(new RegExp(`truncated: showing ${VALUE_LIMIT} of \\d+ characters \\(12\\.0 KiB\\)`));
      expect(page).to.not.contain('x'.repeat(VALUE_LIMIT + 1));
    });

    it('a run with no tasks: every section is there with its heading and says it is empty', () => {
      const page = renderHtml(inspection([], []));
      for (const id of ['errors', 'timeline', 'graph', 'tasks', 'effects', 'approvals', 'budget', 'artifacts', 'agents']) expect(page).to.match(new RegExp(`<section id="${id}" aria-labelledby="${id}-h"><h2 id="${id}-h">`));
      for (const line of ['No errors.', 'No task started.', 'No tasks.', 'No effects.', 'No approvals.', 'No budget limits were set.', 'No artifacts.', 'No agent task ran.']) expect(page).to.contain(line);
      expect(page).to.contain('<html lang="en">');
    });

    it('the same document gives the same bytes', () => {
      expect(renderHtml(chain(30, 4))).to.equal(renderHtml(chain(30, 4)));
    });

    it('draws the task graph in layers up to its limit, then lists the layers instead; the timeline draws its first rows and says how many more', () => {
      const small = renderHtml(chain(3));
      expect(small.match(/<g class="node /g)).to.have.length(3);
      expect(small.match(/<path class="edge"/g)).to.have.length(2);
      expect(small).to.contain('<desc id="graph-desc">t0; t1 needs t0; t2 needs t1</desc>');
      const large = renderHtml(chain(GRAPH_LIMIT + 50, 7));
      expect(large).to.not.contain('<g class="node ');
      expect(large).to.contain(`${GRAPH_LIMIT + 50} tasks in ${GRAPH_LIMIT + 50} layers, ${GRAPH_LIMIT + 49} needs. The graph is not drawn beyond ${GRAPH_LIMIT} tasks`);
      const huge = renderHtml(chain(TIMELINE_LIMIT + 25));
      expect(huge.match(/<li><span class="tl-label">/g)).to.have.length(TIMELINE_LIMIT);
      expect(huge).to.contain(`25 more tasks are not drawn (the timeline draws the first ${TIMELINE_LIMIT})`);
      // Every task is still in the tasks table.
      expect(huge.match(/<tr><th scope="row"><a href="#task-/g)).to.have.length(TIMELINE_LIMIT + 25);
    });

    it('the header names the lineage of a derived run; the timeline says a retried task\'s attempts and draws an open approval wait to the end', () => {
      const document = inspection(
        [task({ id: 'flaky', attempt: 2, startMs: 0, endMs: 400 }), task({ id: 'gate', state: 'waiting_for_approval', startMs: 100, endMs: null })],
        [],
        {
          lineage: { mode: 'retry', sourceRunId: 'run_source', roots: ['flaky'], reason: 'flaky <network>' },
          audit: [
            { seq: 1, type: 'task.retry_scheduled', taskId: 'flaky', effectId: null, data: {}, at: at(200) },
            { seq: 2, type: 'run.paused', taskId: null, effectId: null, data: {}, at: at(500) },
          ],
          approvals: [{ approvalId: 'apr_open', taskId: 'gate', operation: 'process.exec', risk: 'high', reason: 'why', status: 'pending', actor: null, decisionReason: null, requestedAt: at(150), decidedAt: null }],
        },
        { state: 'paused', finishedAt: null, sourceRunId: 'run_source', mode: 'retry' },
      );
      const page = renderHtml(document);
      expect(page).to.contain('<dt>source run</dt><dd><code>run_source</code>');
      expect(page).to.contain('<dt>lineage</dt><dd>retry of run_source</dd><dt>fresh from</dt><dd>flaky</dd><dt>reason</dt><dd>flaky &lt;network&gt;</dd>');
      expect(page).to.contain('<span class="tl-label">flaky <span class="tl-attempts">×2</span></span>');
      expect(page).to.contain('task succeeded, 2 attempts');
      // The wait is still open: it runs to the last moment the run recorded (1000 ms, the run's updatedAt).
      expect(page).to.contain('title="waited 850 ms for approval apr_open (pending)"');
      expect(page).to.contain('Shaded: the run was paused 1 time (500 ms).');
      expect(page).to.contain('<dt>exit code</dt><dd>3</dd>');
      const markdown = renderMarkdown(document);
      expect(markdown).to.contain('- source run: run_source\n- lineage: retry of run_source, fresh from flaky (flaky &lt;network&gt;)');
      const junit = renderJunit(document);
      expect(junit).to.contain('<testcase classname="fixture" name="gate" time="0.000">\n      <skipped message="waiting_for_approval"/>');
    });

    it('an error shows its stable code and the help the SDK lists for it when the failure carries none', () => {
      const page = renderHtml(chain(3, 1));
      expect(page).to.contain('<strong>task t1</strong> <code class="code">AGENTCTL_E_ASSERTION_FAILED</code>');
      expect(page).to.contain('help: the condition of the builtin.assert task was false: fix the data it checks, or the condition');
    });
  });

  describe('junit', () => {
    it('counts tests, failures and skips; a failure is typed by its code with message and help inside; valid against the schema', async () => {
      const document = inspection(
        [task({ id: 'ok' }), task({ id: 'bad', state: 'failed', error: 'x', failure: { code: 'AGENTCTL_E_ASSERTION_FAILED', message: 'it <broke> & "stopped"' } }), task({ id: 'later', state: 'skipped', startMs: null, error: 'skipped: needs bad, which ended failed' })],
        [],
        {},
        { state: 'failed' },
      );
      const text = renderJunit(document);
      expect(text).to.contain('<testsuites>\n  <testsuite name="fixture" package="fixture" id="0" timestamp="2026-01-02T03:04:05" hostname="agentctl" tests="3" failures="1" errors="0" skipped="1" time="1.000">');
      expect(text).to.contain('<property name="agentctl.runId" value="run_fixture"/>');
      expect(text).to.contain('<system-out>agentctl run run_fixture: failed, trace 0123456789abcdef0123456789abcdef</system-out>\n    <system-err/>\n  </testsuite>\n</testsuites>\n');
      expect(text).to.contain('<testcase classname="fixture" name="ok" time="0.100"/>');
      expect(text).to.contain('<failure type="AGENTCTL_E_ASSERTION_FAILED" message="it &lt;broke&gt; &amp; &quot;stopped&quot;">it &lt;broke&gt; &amp; "stopped"\nhelp: the condition of the builtin.assert task was false');
      expect(text).to.contain('<skipped message="skipped: needs bad, which ended failed"/>');
      const result = await validate(text);
      expect(result.errors, result.rawOutput).to.deep.equal([]);
    });

    it('drops the characters XML 1.0 forbids and escapes the rest, in names, attributes and text; still valid', async () => {
      const id = 'weird\u0001<&>"\'\ud800id';
      const text = renderJunit(inspection([task({ id, state: 'failed', failure: { code: 'AGENTCTL_E_PROCESS_EXIT', message: HOSTILE } })], [], {}, { workflowName: HOSTILE }));
      expect(text).to.not.match(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
      expect(text).to.contain('name="weird&lt;&amp;&gt;&quot;&apos;id"');
      expect(xml('a\nb')).to.equal('a&#10;b');
      const result = await validate(text);
      expect(result.errors, result.rawOutput).to.deep.equal([]);
    });

    it('a run that failed outside any task is one error; a run with no tasks is an empty valid suite; the schema refuses a broken report', async () => {
      const budget = renderJunit(inspection([task({ id: 'a' })], [], {}, { state: 'failed', error: { code: 'AGENTCTL_E_BUDGET_EXCEEDED', message: 'maxTasks reached' } }));
      expect(budget).to.contain('tests="2" failures="0" errors="1"');
      expect(budget).to.contain('<error type="AGENTCTL_E_BUDGET_EXCEEDED" message="maxTasks reached">');
      expect((await validate(budget)).valid).to.equal(true);
      const empty = renderJunit(inspection([], []));
      expect(empty).to.contain('tests="0" failures="0" errors="0" skipped="0"');
      expect((await validate(empty)).valid).to.equal(true);
      // The schema can fail: a failure without its type, counts on testsuites, a suite without system-err are refused.
      for (const broken of [budget.replace('<error type="AGENTCTL_E_BUDGET_EXCEEDED" ', '<error '), budget.replace('<testsuites>', '<testsuites tests="2">'), budget.replace('    <system-err/>\n', '')]) {
        expect((await validate(broken)).valid, broken).to.equal(false);
      }
    });

    it('the same document gives the same bytes', () => {
      expect(renderJunit(chain(20, 3))).to.equal(renderJunit(chain(20, 3)));
    });
  });

  describe('markdown', () => {
    it(`beyond ${ROW_LIMIT} tasks: failed tasks first, then the others up to the limit, and how many more; bounded well under 1 MiB`, () => {
      const text = renderMarkdown(chain(1000, 900));
      const rows = text.split('\n').filter((line) => /^\| t\d+ \|/.test(line));
      expect(rows).to.have.length(ROW_LIMIT);
      expect(rows[0]).to.match(/^\| t900 \| builtin\.assign \| failed \|/);
      expect(text).to.contain(`_${1000 - ROW_LIMIT} more tasks; \`agentctl inspect RUN\` lists them all._`);
      expect(text).to.contain('- **t900** (builtin.assign, attempt 1): AGENTCTL_E_ASSERTION_FAILED it broke\n  - help: the condition of the builtin.assert task was false');
      expect(Buffer.byteLength(text)).to.be.lessThan(100 * 1024);
    });

    it('escapes cells (no markup, no table break, no control characters) and cuts a long one', () => {
      const text = renderMarkdown(inspection([task({ id: 'a', state: 'failed', failure: { code: 'X', message: `${HOSTILE} | [link](http://x) ${'y'.repeat(500)}` } })], []));
      expect(text).to.not.contain('<script');
      expect(text).to.not.contain('\u0007');
      expect(text).to.contain('\\| \\[link\\](http://x)');
      expect(text).to.contain('…');
      expect(text).to.not.contain('y'.repeat(300));
    });

    it('a run with no tasks: header and empty tables, no budget, artifact or agent section', () => {
      const text = renderMarkdown(inspection([], []));
      expect(text).to.contain('## Tasks\n\n_none_');
      expect(text).to.not.contain('## Failed tasks');
      expect(text).to.not.contain('## Budget');
      expect(text).to.not.contain('## Agents');
    });
  });
});
