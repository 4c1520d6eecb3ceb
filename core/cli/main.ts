// CLI entry, loaded by bin/agentctl.js for every command but `--version` (which the shim answers itself): output
// failures, inherited descriptors and the compile cache, then the app.

const args = process.argv.slice(2);

// A reader that goes away (`agentctl ... | head`) is not an error of agentctl's: never a stack trace for EPIPE.
// Any other write failure (`> /dev/full`) is reported once, on stderr when stdout failed, and ends with exit 5
// (AGENTCTL_E_OUTPUT_WRITE), whatever the command itself returned: its report was lost.
let outputFailed = false;
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE' || outputFailed) return;
    outputFailed = true;
    process.exitCode = 5;
    if (stream === process.stdout) void import('./app.js').then(({ reportOutputFailure }) => reportOutputFailure(args, error)).catch(() => undefined);
  });
}
process.on('exit', () => {
  if (outputFailed) process.exitCode = 5;
});

// Before any child can be started: descriptors inherited from agentctl's parent are not passed on.
const { closeInheritedDescriptors } = await import('./descriptors.js');
closeInheritedDescriptors();
// Node 22.1+ caches compiled modules on disk, in the user's cache folder (skipped where unavailable or not writable).
const { enableCompileCache } = await import('./compile-cache.js');
enableCompileCache();
const { main } = await import('./app.js');
await main(args);
