// What every recipe runs in agentctl's image: the agentctl arguments of each step of the approval journey, written
// once, and the shell form of one engine run built from the image's contract (scripts/image/contract.mjs). The
// Kubernetes manifests take the same arguments, with Kubernetes' `$(NAME)` references instead of shell variables.
import { runArguments, STATE_DB } from '../image/contract.mjs';

/** The workflow and the settings of every run and resume: reviewed packs only, and a bound on the run's time. */
const WORKFLOW = '/config/workflow.yaml';
const RUN_SETTINGS = ['--locked', '--offline', '--timeout-seconds', '600', '--output', 'json'];
/** Where the reports are written: the /artifacts mount, which the recipes collect. */
const REPORTS = '/artifacts';

/**
 * agentctl's arguments for each step; `ref(NAME)` spells a value the platform fills in (a shell variable, or a
 * Kubernetes environment reference).
 */
export const STEPS = Object.freeze({
  run: () => ['run', WORKFLOW, '--workspace', '/workspace', '--db', STATE_DB, ...RUN_SETTINGS],
  // The pending approvals, as an operator reads them in a log; `list-json` is for a script that takes their ids.
  list: (ref) => ['approvals', 'list', ref('AGENTCTL_RUN_ID'), '--db', STATE_DB],
  'list-json': (ref) => ['approvals', 'list', ref('AGENTCTL_RUN_ID'), '--db', STATE_DB, '--output', 'json'],
  approve: (ref) => [
    'approvals', 'approve', ref('AGENTCTL_APPROVAL_ID'),
    '--reason', ref('AGENTCTL_APPROVAL_REASON'), '--actor', ref('AGENTCTL_APPROVAL_ACTOR'),
    '--db', STATE_DB, '--output', 'json',
  ],
  resume: (ref) => ['resume', ref('AGENTCTL_RUN_ID'), '--db', STATE_DB, ...RUN_SETTINGS],
  // The run's reports, whatever state it ended in: JUnit XML for the platform's test report, HTML to read as an
  // artifact (both under /artifacts, which every recipe collects), Markdown on stdout for a job summary.
  'report-junit': (ref) => ['report', ref('AGENTCTL_RUN_ID'), '--format', 'junit', '--out', `${REPORTS}/agentctl-report.xml`, '--db', STATE_DB],
  'report-html': (ref) => ['report', ref('AGENTCTL_RUN_ID'), '--format', 'html', '--out', `${REPORTS}/agentctl-report.html`, '--db', STATE_DB],
  'report-markdown': (ref) => ['report', ref('AGENTCTL_RUN_ID'), '--format', 'markdown', '--db', STATE_DB],
});

/** Steps that reach a model provider forward its credential, by name; the others run with `--network none`. */
export const CREDENTIALS = Object.freeze(['OPENAI_API_KEY']);
const NEEDS_NETWORK = new Set(['run', 'resume']);

const shellReference = (name) => `$${name}`;
const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;
const EXPANDED = /^(?:[^"\\`$]|\$[A-Za-z_][A-Za-z0-9_]*|\$\{[A-Za-z_][A-Za-z0-9_]*\})+$/;

/**
 * One word as a POSIX shell reads it back: bare when it holds nothing special, double-quoted when it holds `$NAME`
 * references the shell must expand (a host folder, an id from an earlier step), else single-quoted.
 */
export function shellWord(word) {
  if (SAFE.test(word)) return word;
  if (EXPANDED.test(word)) return `"${word}"`;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The engine's command for one step on one platform: `runArguments` of the contract with the platform's host
 * folders and image, one option (with its value) per line, ending with agentctl's arguments.
 * @returns {{ argv: string[], lines: string[] }} the words (engine first) and the shell lines that spell them
 */
export function engineCommand(engine, { step, hosts, image }) {
  const args = STEPS[step](shellReference);
  const network = NEEDS_NETWORK.has(step);
  const argv = [engine, ...runArguments({ image, hosts, args, env: network ? CREDENTIALS : [], network: network ? null : 'none' })];
  const imageAt = argv.length - args.length - 1;
  const lines = [`${argv[0]} ${argv[1]}`];
  for (const word of argv.slice(2, imageAt)) {
    // An option starts a line; its value (a word not starting with --) stays beside it.
    if (word.startsWith('--')) lines.push(shellWord(word));
    else lines[lines.length - 1] += ` ${shellWord(word)}`;
  }
  lines.push(shellWord(argv[imageAt]), args.map(shellWord).join(' '));
  return { argv, lines };
}
