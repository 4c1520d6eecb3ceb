// The GitHub Actions job summary: when a command that drives a run ends, the run's Markdown report is appended to the
// file GITHUB_STEP_SUMMARY names, which GitHub renders on the run's page. GitHub takes at most 1 MiB per step, earlier
// commands of the step included, so a report that does not fit is cut at a line and says so. A summary that cannot be
// written is a warning: the run's outcome and exit code stay what they are.
import { appendFileSync, statSync } from 'node:fs';
import { diagnostic, errorMessage, type Diagnostic, type RunReporter } from '@agentctl/sdk';
import type { Store } from '../store/store.js';
import { renderRunReport } from './run-report.js';

/** GitHub's limit on one step's summary file, in bytes. */
export const JOB_SUMMARY_LIMIT = 1024 * 1024;

/** The reporter the summary is made with. */
const SUMMARY_FORMAT = 'markdown';

/** Where the run reporters are registered: the host the run was driven on. */
export interface RunReporters {
  runReporter(format: string): RunReporter | undefined;
}

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/** Appends the run's report to the step summary; returns a warning when it could not, else null. */
export async function appendJobSummary(reporters: RunReporters, store: Store, runId: string, environment: NodeJS.ProcessEnv): Promise<Diagnostic | null> {
  const path = environment.GITHUB_STEP_SUMMARY;
  if (!path) return warning('GITHUB_STEP_SUMMARY is not set', 'run agentctl as a step of a GitHub Actions job, or give --no-ci');
  const reporter = reporters.runReporter(SUMMARY_FORMAT);
  if (!reporter) return warning(`no run reporter has the format ${SUMMARY_FORMAT}`, 'register a markdown run reporter, or give --no-ci');
  let text: string;
  try {
    text = Buffer.from(await renderRunReport(reporter, store, runId)).toString('utf8');
  } catch (error) {
    return warning(`the markdown report of run ${runId} failed: ${errorMessage(error)}`, `run \`agentctl report ${runId} --format markdown\` to see why`);
  }
  try {
    const existing = sizeOf(path);
    const separator = existing > 0 ? '\n' : '';
    const piece = fitted(inert(text), JOB_SUMMARY_LIMIT - existing - bytes(separator), runId);
    if (piece === null) return warning(`${path} already holds ${existing} bytes, too close to GitHub's limit of ${JOB_SUMMARY_LIMIT} bytes per step for the report of run ${runId}`, 'run agentctl in a step of its own, or give --no-ci');
    appendFileSync(path, separator + piece);
    return null;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? errorMessage(error);
    return warning(`cannot append to ${path} (${code})`, 'GITHUB_STEP_SUMMARY must name a file agentctl can write; give --no-ci to skip the summary');
  }
}

function warning(reason: string, help: string): Diagnostic {
  return diagnostic('AGENTCTL_E_CI_SUMMARY', { severity: 'warning', message: `the job summary was not written: ${reason}`, help });
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
}

/** A line that starts like a CI command (`::error::`, `##[group]`) gets a Markdown escape, which renders as nothing. */
export const inert = (text: string): string => text.replace(/^([ \t]*)(::|##\[)/gm, '$1\\$2');

/**
 * The report within `room` bytes: whole when it fits; else its first whole lines (never part of a table row or of a
 * character), an open code block closed, and a note that the report was cut. Null when not even the note fits.
 */
export function fitted(text: string, room: number, runId: string): string | null {
  const whole = text.endsWith('\n') ? text : `${text}\n`;
  if (bytes(whole) <= room) return whole;
  const note = `\n> **Note:** this report was cut to fit GitHub's limit of 1 MiB per step summary; \`agentctl report ${runId} --format markdown\` prints it whole.\n`;
  const fence = '```\n';
  let budget = room - bytes(note) - bytes(fence);
  if (budget < 0) return null;
  const kept: string[] = [];
  let open = false;
  for (const line of whole.split('\n')) {
    const size = bytes(line) + 1;
    if (size > budget) break;
    budget -= size;
    kept.push(line);
    if (/^\s*(```|~~~)/.test(line)) open = !open;
  }
  return `${kept.map((line) => `${line}\n`).join('')}${open ? fence : ''}${note}`;
}
