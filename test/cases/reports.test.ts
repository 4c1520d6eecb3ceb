// The run reports of a real run, through the real CLI: the HTML page opened offline in a real Chromium (no request,
// no console error, the expected texts and counts, no horizontal scroll at 1280 px and 390 px, landmarks, contrast,
// screenshots saved), the JUnit XML validated by xmllint against a JUnit schema, the Markdown summary; no canary
// secret in any of them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Browser } from 'puppeteer-core';
import { validateXML } from 'xmllint-wasm';
import { ROOT, workspace } from '../support/cli.js';
import { browserSkipped, launchBrowser, openOffline, screenshot } from '../support/browser.js';
import { PAGE_FACTS, POOR_CONTRAST } from '../support/page-checks.js';
import { assertNoCanary, outcome, unique } from './helpers.js';
import { AGENT_TEXT, INJECTED_REASON, runJourney, type Journey } from './report-journey.js';

const JUNIT_XSD = readFileSync(join(ROOT, 'test', 'fixtures', 'junit', 'junit.xsd'), 'utf8');

/** Validates XML against the JUnit schema with xmllint (compiled to WebAssembly). */
export const validJunit = (xml: string) => validateXML({ xml: [{ fileName: 'report.xml', contents: xml }], schema: [JUNIT_XSD] });

describe('run reports of a real run', function () {
  this.timeout(120_000);
  // One journey and its three reports, shared by the tests below: each reads them, none changes the run.
  let ws: ReturnType<typeof workspace>;
  // Launched by the test that needs it, so the JUnit and Markdown tests run wherever Chromium is missing.
  let browser: Browser | undefined;
  let shared: { canary: string; journey: Journey; files: Record<string, string>; outputs: string[] };
  before(() => {
    ws = workspace();
    const canary = unique('canary');
    const journey = runJourney(ws, canary);
    const files: Record<string, string> = {};
    const outputs: string[] = [];
    for (const format of ['html', 'junit', 'markdown']) {
      files[format] = ws.file(`report.${format}`);
      const written = journey.cli('report', journey.runId, '--format', format, '--out', files[format]!, '--output', 'json');
      outputs.push(written.stdout, written.stderr);
      expect(outcome(written, 0).data).to.deep.include({ format, out: files[format] });
    }
    shared = { canary, journey, files, outputs };
  });
  after(async () => {
    await browser?.close();
    ws?.cleanup();
  });

  /** The journey, and each format written with --out. */
  const reported = () => shared;

  it('html: a self-contained page that a real Chromium opens offline without a request or an error, at 1280 px and 390 px', async function () {
    if (browserSkipped()) this.skip();
    browser ??= await launchBrowser();
    const { canary, journey, files, outputs } = reported();
    const { inspection, runId } = journey as Journey;
    const html = readFileSync(files.html!, 'utf8');
    expect(html).to.not.match(/<script|<link|<img|<iframe|<object|@import|url\((?!#)|https?:\/\//i);
    expect(html).to.contain(`<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;;`);

    for (const [width, name] of [[1280, 'wide'], [390, 'phone']] as const) {
      const opened = await openOffline(browser!, files.html!, width);
      const { page } = opened;
      try {
        expect(opened.refused, 'requests other than the file').to.deep.equal([]);
        expect(opened.requests).to.have.length(1);
        expect(opened.problems, 'console errors and failed requests').to.deep.equal([]);
        const facts = (await page.evaluate(PAGE_FACTS)) as Record<string, any>;
        expect(facts.lang).to.equal('en');
        expect(facts.scrollWidth, `no horizontal page scroll at ${width} px`).to.be.at.most(facts.innerWidth);
        expect(facts.scripts).to.equal(0);
        expect(facts.images).to.equal(0);
        expect(facts.landmarks).to.deep.equal([1, 1, 1]);
        expect(facts.sectionsWithoutHeading).to.equal(0);
        expect(facts.headersWithoutScope).to.equal(0);
        expect(facts.tasks).to.equal(inspection.tasks.length).and.to.equal(6);
        expect(facts.effectArticles).to.equal(inspection.effects.length);
        expect(facts.folds).to.equal(2 * inspection.effects.length);
        expect(facts.approvals).to.equal(inspection.approvals.length).and.to.equal(3);
        expect(facts.artifacts).to.equal(1);
        // `after` never started: five bars; three approval waits drawn.
        expect(facts.timelineRows).to.equal(5);
        expect(facts.waits).to.equal(3);
        expect(facts.graphNodes).to.equal(6);
        expect(facts.graphEdges).to.equal(6);
        expect(facts.graphLabel).to.equal('Task graph');
        expect(facts.title).to.equal(`report-journey · ${runId} · succeeded`);
        for (const expected of [runId, inspection.run.traceId, 'report-journey', 'AGENTCTL_E_PROCESS_EXIT', 'AGENTCTL_E_DEPENDENCY_FAILED', 'help: read the process', 'read_service', 'tool_calls', 'inspector', 'out/answer.txt', inspection.artifacts[0].digest, 'alice', INJECTED_REASON, 'toolCalls']) {
          expect(facts.text, expected).to.contain(expected);
        }
        // The agent's markup is text: no <b> element came from it.
        expect(facts.bold).to.equal(0);
        expect(html).to.contain(AGENT_TEXT.replace('<b>', '&lt;b&gt;').replace('</b>', '&lt;/b&gt;'));
        // Every text meets WCAG AA contrast (4.5:1) against the background it is drawn on.
        const poor = await page.evaluate(POOR_CONTRAST);
        expect(poor, 'texts below 4.5:1 contrast').to.deep.equal([]);
        await screenshot(page, `report-${name}`);
      } finally {
        await page.close();
      }
    }
    assertNoCanary(canary, ws.dir, ...outputs);
  });

  it('html: the same run gives the same bytes', () => {
    const { journey, files } = reported();
    const again = journey.cli('report', journey.runId, '--format', 'html');
    expect(again.status, again.stderr).to.equal(0);
    expect(again.stdout).to.equal(readFileSync(files.html!, 'utf8'));
  });

  it('junit: one testsuite with a testcase per task, the failure typed by its code, the skip, right counts, valid against the JUnit schema', async () => {
    const { canary, journey, files, outputs } = reported();
    const xml = readFileSync(files.junit!, 'utf8');
    const validation = await validJunit(xml);
    expect(validation.errors, validation.rawOutput).to.deep.equal([]);
    expect(validation.valid).to.equal(true);
    expect(xml.match(/<testsuite /g)).to.have.length(1);
    expect(xml).to.match(/<testsuites>\n  <testsuite name="report-journey" package="report-journey" id="0" timestamp="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d" hostname="agentctl" tests="6" failures="1" errors="0" skipped="1" time="\d+\.\d{3}">/);
    expect(xml).to.contain(`<property name="agentctl.runId" value="${journey.runId}"/>`);
    const cases = [...xml.matchAll(/<testcase classname="report-journey" name="([^"]+)" time="(\d+\.\d{3})"/g)].map((match) => match[1]);
    expect(cases).to.deep.equal(['hello', 'inspect', 'gated', 'boom', 'after', 'report']);
    expect(xml).to.match(/<testcase classname="report-journey" name="boom" time="[\d.]+">\n\s+<failure type="AGENTCTL_E_PROCESS_EXIT" message="sh exited with status 3: token=\[REDACTED\]">sh exited with status 3: token=\[REDACTED\]\nhelp: /);
    expect(xml).to.match(/name="after" time="0.000">\n\s+<skipped message="skipped: needs boom, which ended failed"\/>/);
    assertNoCanary(canary, ws.dir, ...outputs);
  });

  it('markdown: lineage header, the failed task first with its code and help, budget, artifacts with digests, agent usage and escaped cells', () => {
    const { canary, journey, files, outputs } = reported();
    const markdown = readFileSync(files.markdown!, 'utf8');
    const { inspection } = journey;
    const failedAt = markdown.indexOf('## Failed tasks');
    expect(failedAt).to.be.greaterThan(0).and.lessThan(markdown.indexOf('## Tasks'));
    expect(markdown).to.contain('- tasks: 6 (4 succeeded, 1 failed, 1 skipped)');
    expect(markdown).to.contain('- **boom** (builtin.shell.exec, attempt 1): AGENTCTL_E_PROCESS_EXIT sh exited with status 3: token=\\[REDACTED\\]\n  - help: ');
    expect(markdown).to.contain('## Budget\n\n| dimension | used | reserved | limit | share |\n| --- | --- | --- | --- | --- |\n| tasks | 5 | 0 | 20 | 25% |');
    expect(markdown).to.contain(`| out/answer.txt | report | text/plain | ${inspection.artifacts[0].sizeBytes} | ${inspection.artifacts[0].digest} |`);
    expect(markdown).to.contain('| inspect | inspector | 2 | tool_calls, complete | 2 | 2 | read_service (succeeded) |');
    expect(markdown).to.contain('usage: providerRequests 2, toolCalls 1, inputTokens 2, outputTokens 2, totalTokens 4');
    // The decision reason is escaped: no HTML element, no table break.
    expect(markdown).to.contain('| alice | &lt;script&gt;alert(1)&lt;/script&gt; & &lt;img src=x onerror=alert(2)&gt; \\]\\]&gt; "quoted" |');
    expect(markdown).to.not.match(/<script|<img/);
    assertNoCanary(canary, ws.dir, ...outputs);
  });
});
