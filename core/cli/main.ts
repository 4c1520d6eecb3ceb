// CLI entry. `--version` answers before any heavy module is loaded; everything else loads the app lazily.
import { HOST_VERSION } from '../version.js';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${HOST_VERSION}\n`);
} else {
  const { main } = await import('./app.js');
  await main(args);
}
