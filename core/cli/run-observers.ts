// What a command that drives a run shows while it runs: human progress on stderr (drawn live on a person's terminal,
// otherwise the plain log), or with `--output jsonl` one StreamEvent line per recorded event on stdout (the final
// document follows). `--output json` shows nothing.
import type { Host } from '../host.js';
import { installProgress } from '../progress.js';
import { installStreamEvents } from '../stream-events.js';
import { palette, type OutputOptions } from './output.js';

export function runObservers(output: OutputOptions): (host: Host) => void {
  const colors = palette(output.color);
  return (host) => {
    if (output.mode === 'human' && output.live) output.live.observe(host);
    else if (output.mode === 'human') installProgress(host, (line) => process.stderr.write(`${colors.dim(line)}\n`));
    else if (output.stream) installStreamEvents(host, (line) => process.stdout.write(line));
  };
}
