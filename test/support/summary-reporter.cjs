// Mocha's spec output, then one machine-readable closing line: "N passed, N failed, N skipped".
const { reporters, Runner } = require('mocha');

class SummaryReporter extends reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    runner.on(Runner.constants.EVENT_TEST_PASS, () => (passed += 1));
    runner.on(Runner.constants.EVENT_TEST_FAIL, () => (failed += 1));
    runner.on(Runner.constants.EVENT_TEST_PENDING, () => (skipped += 1));
    runner.once(Runner.constants.EVENT_RUN_END, () => {
      process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
    });
  }
}

module.exports = SummaryReporter;
