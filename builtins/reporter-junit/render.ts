// A run as JUnit XML, the format CI systems read test results in: one `testsuite` (inside `testsuites`) per run, one
// `testcase` per task — classname the workflow, name the task id, time its duration in seconds. A failed task is a
// `failure` whose type is its stable error code; a task that never ran to an end (skipped, cancelled, not reached)
// is `skipped`. The shape is the strictest the readers share (Ant's schema, which Jenkins and GitLab also read):
// counts on the suite, not on `testsuites`; the suite's `id` its index; `properties`, `system-out` and `system-err`
// present. Every text is XML-escaped, and characters XML 1.0 forbids are dropped.
import { ERROR_CODES, type RunInspection } from '@agentctl/sdk';

type Task = RunInspection['tasks'][number];

/** Text as XML character data or attribute value: entities for markup, forbidden characters dropped, line breaks kept in attributes. */
export function xml(value: unknown): string {
  const text = value === null || value === undefined ? '' : String(value);
  return (
    text
      // XML 1.0 allows tab, newline, carriage return, and U+0020 up; lone surrogates and U+FFFE/U+FFFF are not characters.
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;')
      .replace(/\n/g, '&#10;')
      .replace(/\r/g, '&#13;')
      .replace(/\t/g, '&#9;')
  );
}

/** Character data: like `xml`, but only `&`, `<` and `>` need entities there, and line breaks stay line breaks. */
const text = (value: unknown) =>
  xml(value).replace(/&#10;/g, '\n').replace(/&#13;/g, '\r').replace(/&#9;/g, '\t').replace(/&quot;/g, '"').replace(/&apos;/g, "'");

const seconds = (from: string | null | undefined, to: string | null | undefined) => {
  if (!from || !to) return '0.000';
  const ms = Date.parse(to) - Date.parse(from);
  return Number.isFinite(ms) && ms > 0 ? (ms / 1000).toFixed(3) : '0.000';
};

interface Failure {
  code: string;
  message: string;
  help: string | null;
}

function failureOf(task: Task): Failure {
  const recorded = (task.failure ?? {}) as { code?: unknown; message?: unknown; help?: unknown; diagnostics?: unknown };
  const first = Array.isArray(recorded.diagnostics) ? (recorded.diagnostics[0] as { help?: unknown } | undefined) : undefined;
  const code = typeof recorded.code === 'string' ? recorded.code : 'AGENTCTL_E_RUN_FAILED';
  const help = typeof recorded.help === 'string' ? recorded.help : typeof first?.help === 'string' ? first.help : code in ERROR_CODES ? ERROR_CODES[code as keyof typeof ERROR_CODES].help : null;
  return { code, message: typeof recorded.message === 'string' ? recorded.message : (task.error ?? `task ${task.taskId} failed`), help };
}

/** A task that did not run to an end of its own: skipped, cancelled, or never reached. */
const isSkipped = (task: Task) => task.state !== 'succeeded' && task.state !== 'failed';

function testcase(task: Task, classname: string): string {
  const open = `    <testcase classname="${xml(classname)}" name="${xml(task.taskId)}" time="${seconds(task.startedAt, task.finishedAt)}">`;
  if (task.state === 'failed') {
    const failure = failureOf(task);
    const body = [failure.message, failure.help ? `help: ${failure.help}` : null, `kind: ${task.kind}`, `attempt: ${task.attempt}`].filter((line) => line !== null).join('\n');
    return `${open}\n      <failure type="${xml(failure.code)}" message="${xml(failure.message)}">${text(body)}</failure>\n    </testcase>`;
  }
  if (isSkipped(task)) return `${open}\n      <skipped message="${xml(task.error ?? task.state)}"/>\n    </testcase>`;
  return `${open.slice(0, -1)}/>`;
}

export function renderJunit(inspection: RunInspection): string {
  const { run, tasks } = inspection;
  const failures = tasks.filter((task) => task.state === 'failed').length;
  const skipped = tasks.filter(isSkipped).length;
  // A run that failed outside any task (a budget, a ledger error) is one error of the suite.
  const runError = run.state === 'failed' && failures === 0 ? ((run.error ?? {}) as { code?: unknown; message?: unknown }) : null;
  const errors = runError ? 1 : 0;
  const time = seconds(run.createdAt, run.finishedAt ?? run.updatedAt);
  const counts = `tests="${tasks.length + errors}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${time}"`;
  const properties = [
    ['agentctl.runId', run.runId],
    ['agentctl.state', run.state],
    ['agentctl.traceId', run.traceId],
    ['agentctl.mode', run.mode],
    ['agentctl.planDigest', run.planDigest],
    ...(run.sourceRunId ? [['agentctl.sourceRunId', run.sourceRunId]] : []),
  ].map(([name, value]) => `      <property name="${xml(name)}" value="${xml(value)}"/>`);
  const cases = tasks.map((task) => testcase(task, run.workflowName));
  if (runError) {
    const code = typeof runError.code === 'string' ? runError.code : 'AGENTCTL_E_RUN_FAILED';
    const message = typeof runError.message === 'string' ? runError.message : 'the run failed';
    cases.push(`    <testcase classname="${xml(run.workflowName)}" name="(run)" time="${time}">\n      <error type="${xml(code)}" message="${xml(message)}">${text(message)}</error>\n    </testcase>`);
  }
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<testsuites>',
    `  <testsuite name="${xml(run.workflowName)}" package="${xml(run.workflowName)}" id="0" timestamp="${xml(run.createdAt.slice(0, 19))}" hostname="agentctl" ${counts}>`,
    '    <properties>',
    ...properties,
    '    </properties>',
    ...cases,
    `    <system-out>${text(`agentctl run ${run.runId}: ${run.state}, trace ${run.traceId}`)}</system-out>`,
    '    <system-err/>',
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
