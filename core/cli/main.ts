// CLI entry. `--version` answers before any heavy module is loaded; everything else loads the app lazily.
import module from 'node:module';
import { HOST_VERSION } from '../version.js';
import { closeInheritedDescriptors } from './descriptors.js';

// A reader that goes away (`agentctl ... | head`) is not an error of agentctl's: never a stack trace for EPIPE.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${HOST_VERSION}\n`);
} else {
  // Before any child can be started: descriptors inherited from agentctl's parent are not passed on.
  closeInheritedDescriptors();
  // Node 22.1+ caches compiled modules on disk (a no-op where unavailable or not writable); Node 20 has no cache.
  (module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
  const { main } = await import('./app.js');
  await main(args);
}
