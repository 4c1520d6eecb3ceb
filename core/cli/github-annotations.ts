// GitHub Actions annotations: a diagnostic that points into a file is also printed as a workflow command
// (`::error file=F,line=L,col=C,title=CODE::MESSAGE`), which the runner shows on the file's line in the pull request
// and the run page. The runner reads workflow commands on stdout and stderr alike, so they go to stderr, beside the
// diagnostics they repeat; JSON mode prints none (each stream there carries one document and nothing else).
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { Diagnostic } from '@agentctl/sdk';
import { neutralize } from '../text.js';

/** GitHub shows at most this many annotations of each severity per step; more are dropped without a word. */
export const ANNOTATIONS_PER_SEVERITY = 10;

const COMMAND = { error: 'error', warning: 'warning', info: 'notice' } as const;

/** A workflow command's message: `%`, CR and LF escaped, so the text cannot end the command or start another. */
export const escapeData = (text: string): string => text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');

/** A workflow command's property value: as its message, and `:` and `,`, which end a property, escaped too. */
export const escapeProperty = (text: string): string => escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');

/** The file as GitHub names it: relative to GITHUB_WORKSPACE (the checkout) when inside it, with forward slashes. */
export function annotationPath(file: string, environment: NodeJS.ProcessEnv): string {
  const absolute = resolve(file);
  const workspace = environment.GITHUB_WORKSPACE;
  if (workspace) {
    const inside = relative(resolve(workspace), absolute);
    if (inside !== '' && !inside.startsWith('..') && !isAbsolute(inside)) return inside.split(sep).join('/');
  }
  return file.split(sep).join('/');
}

/**
 * The annotation lines for the diagnostics that carry a file and a line: at most ten of each severity (GitHub's limit
 * per step), then one plain line counting the ones left out and saying where they are (`elsewhere`).
 */
export function annotationLines(diagnostics: readonly Diagnostic[], environment: NodeJS.ProcessEnv, elsewhere = 'see the log'): string[] {
  const located = diagnostics.filter((item) => item.file && typeof item.line === 'number' && item.line > 0);
  const shown = new Map<string, number>();
  const lines: string[] = [];
  let omitted = 0;
  for (const item of located) {
    const command = COMMAND[item.severity] ?? 'error';
    const count = shown.get(command) ?? 0;
    if (count >= ANNOTATIONS_PER_SEVERITY) {
      omitted += 1;
      continue;
    }
    shown.set(command, count + 1);
    const properties = [`file=${escapeProperty(annotationPath(item.file!, environment))}`, `line=${item.line}`, ...(item.column ? [`col=${item.column}`] : []), `title=${escapeProperty(String(item.code))}`];
    // Control characters are shown escaped, as everywhere agentctl prints text it did not write.
    const message = [item.message, ...(item.help ? [`help: ${item.help}`] : [])].map(neutralize).join('\n');
    lines.push(`::${command} ${properties.join(',')}::${escapeData(message)}`);
  }
  if (omitted > 0) lines.push(`${omitted} more diagnostic${omitted === 1 ? '' : 's'}: ${elsewhere}`);
  return lines;
}
