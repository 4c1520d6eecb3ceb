// The summary reporter, plus a duration table: per spec file (wall time from its first event to the next file's, hooks
// included) and the slowest tests. Use it to find where the suite's time goes:
//
//   npx mocha --reporter ./test/support/timing-reporter.cjs [--reporter-option out=FILE] [--reporter-option top=N]
//     [--reporter-option json=FILE] [FILES]
//
// The table goes to FILE when given (the spec output and the closing line stay untouched), else to stderr. With
// json=FILE (what scripts/test-shards.mjs uses) the per-file seconds are written there as one JSON object
// { "path": seconds }, and the table only when out= is given too.
const { writeFileSync } = require('node:fs');
const { relative } = require('node:path');
const { Runner } = require('mocha');
const SummaryReporter = require('./summary-reporter.cjs');

const { EVENT_SUITE_BEGIN, EVENT_TEST_END, EVENT_RUN_END } = Runner.constants;

class TimingReporter extends SummaryReporter {
  constructor(runner, options) {
    super(runner, options);
    const reporterOptions = (options && options.reporterOptions) || {};
    const top = Number(reporterOptions.top) > 0 ? Number(reporterOptions.top) : 15;
    const name = (file) => (file ? relative(process.cwd(), file) : '(no file)');
    const files = new Map(); // file -> { ms, tests }
    const tests = [];
    // A file's time runs from its first top-level suite's start to the next file's (or the run's end), so its hooks,
    // and the time mocha spends between its suites, count to it.
    let current; // { file, started }
    const close = () => {
      if (current === undefined) return;
      const entry = files.get(current.file) ?? { ms: 0, tests: 0 };
      entry.ms += Number(process.hrtime.bigint() - current.started) / 1e6;
      files.set(current.file, entry);
      current = undefined;
    };
    runner.on(EVENT_SUITE_BEGIN, (suite) => {
      if (!suite.parent || !suite.parent.root) return;
      if (current !== undefined && current.file === name(suite.file)) return;
      close();
      current = { file: name(suite.file), started: process.hrtime.bigint() };
    });
    runner.on(EVENT_TEST_END, (test) => {
      const entry = files.get(name(test.file)) ?? { ms: 0, tests: 0 };
      entry.tests += 1;
      files.set(name(test.file), entry);
      if (typeof test.duration === 'number') tests.push({ ms: test.duration, title: test.fullTitle(), file: name(test.file) });
    });
    runner.once(EVENT_RUN_END, () => {
      close();
      const byFile = [...files.entries()].sort((a, b) => b[1].ms - a[1].ms);
      const total = byFile.reduce((sum, [, entry]) => sum + entry.ms, 0);
      const lines = [`# per file (wall s, tests), total ${(total / 1000).toFixed(1)} s over ${byFile.length} files`];
      for (const [file, entry] of byFile) lines.push(`${(entry.ms / 1000).toFixed(1).padStart(8)}  ${String(entry.tests).padStart(4)}  ${file}`);
      lines.push('', `# slowest ${top} tests (s)`);
      for (const test of tests.sort((a, b) => b.ms - a.ms).slice(0, top)) lines.push(`${(test.ms / 1000).toFixed(1).padStart(8)}  ${test.file}: ${test.title}`);
      const text = `${lines.join('\n')}\n`;
      if (reporterOptions.json) writeFileSync(reporterOptions.json, `${JSON.stringify(Object.fromEntries(byFile.map(([file, entry]) => [file, Math.round(entry.ms) / 1000])))}\n`);
      if (reporterOptions.out) writeFileSync(reporterOptions.out, text);
      else if (!reporterOptions.json) process.stderr.write(text);
    });
  }
}

module.exports = TimingReporter;
