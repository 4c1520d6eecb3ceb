#!/usr/bin/env node
// Entry shim: the CLI is compiled to dist/ by `npm run build` (run by `npm ci` through `prepare`).
// It is CommonJS (bin/package.json), the cheapest module Node can start from, so that `--version` answers at about
// the cost of starting Node; every other command loads the ES module entry (dist/core/cli/main.js).
'use strict';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  // A failed write is reported as any command's is (AGENTCTL_E_OUTPUT_WRITE, exit 5); a reader gone away is not one.
  process.stdout.on('error', (error) => {
    if (error.code === 'EPIPE') return;
    process.exitCode = 5;
    import('../dist/core/cli/app.js').then(({ reportOutputFailure }) => reportOutputFailure(args, error)).catch(() => undefined);
  });
  process.stdout.write(`${require('../package.json').version}\n`);
} else {
  import('../dist/core/cli/main.js');
}
