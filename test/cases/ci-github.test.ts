// GitHub Actions, through the real CLI: the run's Markdown report appended to the job summary for every way a run
// ends, within GitHub's 1 MiB per step; annotations for diagnostics that point into a file, escaped and limited;
// nothing of it with --no-ci, outside GitHub, or on a JSON stream; no secret and no live workflow command anywhere.
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { baseEnv, parseDocument, runCli, type CliResult } from '../support/cli.js';
import { outcome, shellWorkflow, unique, useWorkspace, workflow } from './helpers.js';

const LIMIT = 1024 * 1024;

/** A workflow document with unknown fields on lines 9 onwards (column 7), one per name. */
const malformed = (fields: string[]) => ['apiVersion: agentctl.dev/v1', 'kind: Workflow', 'metadata:', '  name: bad', 'spec:', '  tasks:', '    - id: a', '      uses: action:nope', ...fields.map((name) => `      ${JSON.stringify(name)}: 1`), ''].join('\n');

/** Lines a GitHub runner would take as a workflow command: `::` at the start of a line, after blanks. */
const commandLines = (text: string) => text.split(/\r?\n/).filter((line) => /^\s*::/.test(line));

describe('GitHub Actions: job summary and annotations', () => {
  const state = useWorkspace();
  const ws = () => state.ws;
  const summary = () => ws().file('summary.md');
  const github = (extra: NodeJS.ProcessEnv = {}) => baseEnv({ CI: 'true', GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary(), GITHUB_WORKSPACE: ws().dir, ...extra });
  // `check` and `plan` take no database.
  const cli = (args: string[], env = github()): CliResult => runCli(['check', 'plan'].includes(args[0]!) ? args : [...args, '--db', ws().db], { env, cwd: ws().dir });
  const read = () => readFileSync(summary(), 'utf8');
  const say = (script: string, policy: Record<string, unknown> = { approval: 'never' }) => ws().write('flow.yaml', shellWorkflow({ command: '/bin/sh', args: ['-c', script] }, { processAllowlist: ['sh', 'sleep'], ...policy }));

  describe('the job summary', () => {
    it('a succeeded run appends its Markdown report; stdout is the summary line it always is, and no warning is printed', () => {
      const file = say('echo hello');
      const result = cli(['run', file]);
      expect(result.status, result.stderr).to.equal(0);
      const runId = /^run (\S+) succeeded: 1 succeeded$/m.exec(result.stdout)![1]!;
      expect(result.stdout).to.equal(`run ${runId} succeeded: 1 succeeded\n`);
      const text = read();
      expect(text.startsWith(`# Run ${runId}\n`)).to.equal(true);
      expect(text).to.contain('- state: **succeeded**');
      expect(text).to.match(/\| cmd \| builtin\.shell\.exec \| succeeded \|/);
      expect(text.endsWith('\n')).to.equal(true);
      expect(result.stderr).to.not.contain('warning');
      expect(commandLines(result.stderr)).to.deep.equal([]);
    });

    it('failed, paused and cancelled runs append theirs too, after what the file already held, one report per command', () => {
      writeFileSync(summary(), '## an earlier step\n\nbuilt 3 packages\n');
      const failed = cli(['run', say('exit 3'), '--output', 'json']);
      expect(failed.status, failed.stderr).to.equal(4);
      const failedId = parseDocument(failed.stderr).error.runId as string;
      const paused = cli(['run', ws().write('paused.yaml', shellWorkflow({ command: '/bin/sh', args: ['-c', 'echo hi'] }, { processAllowlist: ['sh'] })), '--output', 'json']);
      const pausedId = outcome(paused, 3).data.runId as string;
      const cancelled = cli(['run', say('sleep 30'), '--timeout-seconds', '1', '--output', 'json']);
      const cancelledId = outcome(cancelled, 130).data.runId as string;
      const text = read();
      expect(text.startsWith('## an earlier step\n\nbuilt 3 packages\n\n# Run ')).to.equal(true);
      const reports = text.split(/^# Run /m).slice(1);
      expect(reports.map((report) => report.split('\n')[0])).to.deep.equal([failedId, pausedId, cancelledId]);
      expect(reports.map((report) => /- state: \*\*(\w+)\*\*/.exec(report)![1])).to.deep.equal(['failed', 'paused', 'cancelled']);
      // JSON mode: stdout holds one document and stderr nothing but the failure's one document.
      for (const result of [paused, cancelled]) {
        expect(result.stdout.trimEnd().split('\n')).to.have.length(1);
        expect(result.stderr).to.equal('');
      }
      expect(failed.stdout).to.equal('');
      expect(failed.stderr.trimEnd().split('\n')).to.have.length(1);
    });

    it('resume and replay append the report of the run they drove', () => {
      const file = ws().write('paused.yaml', shellWorkflow({ command: '/bin/sh', args: ['-c', 'echo hi'] }, { processAllowlist: ['sh'] }));
      const runId = outcome(cli(['run', file, '--output', 'json']), 3).data.runId as string;
      const approval = outcome(runCli(['approvals', 'list', runId, '--db', ws().db, '--output', 'json'], { env: baseEnv() }), 0).data[0].approvalId as string;
      outcome(runCli(['approvals', 'approve', approval, '--reason', 'ok', '--db', ws().db, '--output', 'json'], { env: baseEnv() }), 0);
      outcome(cli(['resume', runId, '--output', 'json']), 0);
      const replayId = outcome(cli(['replay', runId, '--output', 'json']), 0).data.runId as string;
      const reports = read().split(/^# Run /m).slice(1);
      expect(reports.map((report) => `${report.split('\n')[0]} ${/- state: \*\*(\w+)\*\*/.exec(report)![1]}`)).to.deep.equal([`${runId} paused`, `${runId} succeeded`, `${replayId} succeeded`]);
    });

    it('retry appends the report of the new run it drove, linked to the failed one', () => {
      const file = say('exit 3');
      const failedId = parseDocument(cli(['run', file, '--output', 'json']).stderr).error.runId as string;
      const retried = cli(['retry', file, failedId, '--failed', '--output', 'json']);
      expect(retried.status, retried.stderr).to.equal(4);
      const retryId = parseDocument(retried.stderr).error.runId as string;
      expect(retryId).to.not.equal(failedId);
      const reports = read().split(/^# Run /m).slice(1);
      expect(reports.map((report) => `${report.split('\n')[0]} ${/- state: \*\*(\w+)\*\*/.exec(report)![1]}`)).to.deep.equal([`${failedId} failed`, `${retryId} failed`]);
    });

    it('compensate appends the report of the compensation run', () => {
      const file = ws().write(
        'provision.yaml',
        workflow({
          policy: { writableRoots: ['out'], approval: 'never' },
          actions: { write: { kind: 'builtin.write' }, assert: { kind: 'builtin.assert' } },
          tasks: [
            { id: 'provision', uses: 'action:write', with: { path: 'out/resource.txt', content: 'made' }, compensate: { uses: 'action:write', with: { path: 'out/resource.txt', content: 'undone' } } },
            { id: 'validate', uses: 'action:assert', needs: ['provision'], with: { that: false, message: 'validation failed' } },
          ],
        }),
      );
      const sourceId = parseDocument(cli(['run', file, '--output', 'json']).stderr).error.runId as string;
      const compensated = outcome(cli(['compensate', sourceId, '--output', 'json']), 0);
      expect(compensated.kind).to.equal('CompensationOutcome');
      const reports = read().split(/^# Run /m).slice(1);
      expect(reports.map((report) => `${report.split('\n')[0]} ${/- state: \*\*(\w+)\*\*/.exec(report)![1]}`)).to.deep.equal([`${sourceId} failed`, `${compensated.data.runId} succeeded`]);
      expect(readFileSync(ws().file('out/resource.txt'), 'utf8')).to.equal('undone');
    });

    it('keeps the file under 1 MiB: a report that does not fit is cut after a whole line and says so', () => {
      // Earlier steps left the file 700 bytes short of the limit, in multi-byte characters.
      const earlier = `${'é'.repeat(LIMIT / 2 - 351)}\n`;
      writeFileSync(summary(), earlier);
      expect(Buffer.byteLength(earlier)).to.equal(LIMIT - 701);
      const result = cli(['run', say('exit 1')]);
      expect(result.status, result.stderr).to.equal(4);
      const bytes = readFileSync(summary());
      expect(bytes.length).to.be.at.most(LIMIT);
      const added = bytes.subarray(Buffer.byteLength(earlier));
      // Whole UTF-8 characters: the bytes decode and encode back unchanged.
      expect(Buffer.from(added.toString('utf8')).equals(added)).to.equal(true);
      const text = added.toString('utf8');
      expect(text).to.match(/^\n# Run run_/);
      expect(text).to.contain("cut to fit GitHub's limit of 1 MiB per step summary");
      expect(text).to.match(/`agentctl report run_\w+ --format markdown` prints it whole\.\n$/);
      // No table row is cut: every row that starts also ends, and the note is a paragraph of its own.
      for (const line of text.split('\n').filter((row) => row.startsWith('|'))) expect(line.endsWith('|'), line).to.equal(true);
      expect(text).to.contain('\n\n> **Note:**');
    });

    it('a file with no room left, a file that cannot be written and an unset variable are one warning each; the exit code stays', () => {
      const file = say('echo hello');
      writeFileSync(summary(), 'x'.repeat(LIMIT - 40));
      const full = cli(['run', file]);
      expect(full.status, full.stderr).to.equal(0);
      expect(readFileSync(summary()).length).to.equal(LIMIT - 40);
      const warnings = (result: CliResult) => result.stderr.split('\n').filter((line) => line.startsWith('warning:'));
      expect(warnings(full)).to.have.length(1);
      expect(warnings(full)[0]).to.contain('the job summary was not written').and.contain('AGENTCTL_E_CI_SUMMARY');
      const folder = join(ws().dir, 'a-folder');
      mkdirSync(folder);
      const unwritable = cli(['run', file], github({ GITHUB_STEP_SUMMARY: folder }));
      expect(unwritable.status).to.equal(0);
      expect(warnings(unwritable)).to.deep.equal([`warning: the job summary was not written: cannot append to ${folder} (EISDIR) (AGENTCTL_E_CI_SUMMARY; GITHUB_STEP_SUMMARY must name a file agentctl can write; give --no-ci to skip the summary)`]);
      const unset = cli(['run', file], github({ GITHUB_STEP_SUMMARY: undefined }));
      expect(unset.status).to.equal(0);
      expect(warnings(unset)).to.have.length(1);
      expect(warnings(unset)[0]).to.contain('GITHUB_STEP_SUMMARY is not set');
      // JSON mode: the warning is a diagnostic of the one document, and stderr stays empty.
      const missing = join(ws().dir, 'no-such-folder', 'summary.md');
      const json = cli(['run', file, '--output', 'json'], github({ GITHUB_STEP_SUMMARY: missing }));
      const document = outcome(json, 0);
      expect(json.stderr).to.equal('');
      expect(document.diagnostics).to.have.length(1);
      expect(document.diagnostics[0]).to.include({ code: 'AGENTCTL_E_CI_SUMMARY', severity: 'warning', message: `the job summary was not written: cannot append to ${missing} (ENOENT)` });
      expect(existsSync(missing)).to.equal(false);
    });

    it('is not written with --no-ci, nor outside GitHub Actions (GitLab CI, Jenkins, any CI), even when GITHUB_STEP_SUMMARY is set', () => {
      const file = say('echo hello');
      const plain = cli(['run', file], baseEnv());
      const cases: [string[], NodeJS.ProcessEnv][] = [
        [['run', file, '--no-ci'], github()],
        [['run', file], baseEnv({ CI: 'true', GITHUB_STEP_SUMMARY: summary() })],
        [['run', file], baseEnv({ GITLAB_CI: 'true', CI: 'true', GITHUB_STEP_SUMMARY: summary() })],
        [['run', file], baseEnv({ JENKINS_URL: 'http://127.0.0.1:1/', BUILD_ID: '7', GITHUB_STEP_SUMMARY: summary() })],
      ];
      for (const [args, env] of cases) {
        const result = cli(args, env);
        expect(result.status, result.stderr).to.equal(0);
        expect(result.stdout.replace(/run_\w+/, 'RUN')).to.equal(plain.stdout.replace(/run_\w+/, 'RUN'));
        expect(existsSync(summary())).to.equal(false);
      }
    });
  });

  describe('annotations', () => {
    it('a malformed workflow: one ::error per diagnostic, file relative to GITHUB_WORKSPACE, line and column of the field, code as title', () => {
      mkdirSync(ws().file('flows'));
      const file = ws().write('flows/bad.yaml', malformed(['bogus']));
      const result = cli(['check', file]);
      expect(result.status).to.equal(2);
      expect(result.stdout).to.equal('');
      expect(commandLines(result.stderr)).to.deep.equal([
        '::error file=flows/bad.yaml,line=9,col=7,title=AGENTCTL_E_UNKNOWN_FIELD::unknown field "bogus" in spec.tasks[0]%0Ahelp: remove the field or check its spelling; see `agentctl schema` for the allowed fields',
      ]);
      // The human diagnostics are printed as before, above the annotations.
      expect(result.stderr).to.contain('AGENTCTL_E_UNKNOWN_FIELD');
      for (const command of ['run', 'plan']) expect(commandLines(cli([command, file]).stderr)).to.have.length(1);
    });

    it('escapes % , : and newlines: in a property (the file) all four, in the message %, CR and LF', () => {
      const folder = ws().file('odd,name:100%');
      mkdirSync(folder);
      const file = ws().write('odd,name:100%/bad.yaml', malformed(['50%,x:y', 'two\nlines']));
      const lines = commandLines(cli(['check', file]).stderr);
      expect(lines).to.have.length(2);
      expect(lines[0]).to.equal('::error file=odd%2Cname%3A100%25/bad.yaml,line=9,col=7,title=AGENTCTL_E_UNKNOWN_FIELD::unknown field "50%25,x:y" in spec.tasks[0]%0Ahelp: remove the field or check its spelling; see `agentctl schema` for the allowed fields');
      expect(lines[1]).to.match(/^::error file=odd%2Cname%3A100%25\/bad\.yaml,line=10,col=7,title=AGENTCTL_E_UNKNOWN_FIELD::unknown field "two(%0A|\\n)lines"/);
      // Outside GITHUB_WORKSPACE the path is the one the diagnostic names.
      const outside = commandLines(cli(['check', file], github({ GITHUB_WORKSPACE: '/nonexistent-workspace' })).stderr);
      expect(outside[0]).to.match(/^::error file=\/.*odd%2Cname%3A100%25\/bad\.yaml,line=9,/);
    });

    it('a warning of a command that succeeds is a ::warning on its task\'s line; stdout is unchanged', () => {
      const file = ws().write('warn.yaml', shellWorkflow({ command: '/bin/sh', args: ['-c', 'echo hi'] }, { processAllowlist: ['sh'] }));
      const result = cli(['check', file]);
      expect(result.status, result.stderr).to.equal(0);
      expect(result.stdout).to.equal(cli(['check', file], baseEnv()).stdout);
      const lines = commandLines(result.stderr);
      expect(lines).to.have.length(1);
      expect(lines[0]).to.match(/^::warning file=warn\.yaml,line=\d+,col=\d+,title=AGENTCTL_E_APPROVAL_PENDING::task cmd will need an approval: /);
      expect(lines[0]).to.not.match(/[\r\n]/);
    });

    it('prints at most ten errors per step, then one line counting the rest', () => {
      const file = ws().write('many.yaml', malformed(Array.from({ length: 13 }, (_, index) => `bogus${index}`)));
      const result = cli(['check', file]);
      expect(result.status).to.equal(2);
      const lines = result.stderr.trimEnd().split('\n');
      const annotations = commandLines(result.stderr);
      expect(annotations).to.have.length(10);
      expect(annotations.map((line) => /line=(\d+)/.exec(line)![1])).to.deep.equal(['9', '10', '11', '12', '13', '14', '15', '16', '17', '18']);
      expect(lines.at(-1)).to.equal('3 more diagnostics: see the log');
      // The log has them all.
      for (let index = 0; index < 13; index += 1) expect(result.stderr).to.contain(`at spec.tasks[0].bogus${index}`);
    });

    it('none in JSON mode: stdout or stderr holds exactly one document; none with --no-ci or outside GitHub', () => {
      const file = ws().write('bad.yaml', malformed(['bogus']));
      const json = cli(['check', file, '--output', 'json']);
      expect(json.status).to.equal(2);
      expect(json.stdout).to.equal('');
      expect(json.stderr.trimEnd().split('\n')).to.have.length(1);
      expect(parseDocument(json.stderr).diagnostics[0]).to.include({ file, line: 9, column: 7 });
      const plain = cli(['check', file], baseEnv());
      expect(cli(['check', file, '--no-ci']).stderr).to.equal(plain.stderr);
      expect(runCli(['--no-ci', 'check', file], { env: github(), cwd: ws().dir }).stderr).to.equal(plain.stderr);
      for (const env of [baseEnv({ CI: 'true' }), baseEnv({ GITLAB_CI: 'true', CI: 'true' }), baseEnv({ JENKINS_URL: 'http://127.0.0.1:1/', BUILD_ID: '7' })]) {
        expect(cli(['check', file], env).stderr).to.equal(plain.stderr);
      }
    });
  });

  describe('secrets and text from tasks', () => {
    it('a canary secret is in no byte of stdout, stderr or the summary, and no mask is ever registered', () => {
      const canary = unique('canary');
      const file = ws().write(
        'secret.yaml',
        workflow({
          policy: { processAllowlist: ['sh'], approval: 'never', environmentAllowlist: ['TOKEN'] },
          actions: { leak: { kind: 'builtin.shell.exec', command: '/bin/sh', args: ['-c', 'echo "token $TOKEN"; echo "token $TOKEN" >&2; exit 1'], env: { TOKEN: { env: 'CI_CANARY' } } } },
          tasks: [{ id: 'leak', uses: 'action:leak' }],
        }),
      );
      for (const output of ['human', 'json']) {
        const result = cli(['run', file, '--output', output], github({ CI_CANARY: canary }));
        expect(result.status, result.stderr).to.equal(4);
        expect(result.stdout + result.stderr).to.not.contain(canary);
        expect(result.stdout + result.stderr).to.not.contain('add-mask');
      }
      const text = read();
      expect(text.split(/^# Run /m)).to.have.length(3);
      expect(text).to.not.contain(canary);
      expect(text).to.not.contain('add-mask::');
    });

    it('a task whose output is ::error::x, ::add-mask::y or ::stop-commands:: makes no live command in the output or the summary', () => {
      const script = 'printf "::error::x\\n::add-mask::y\\n  ::stop-commands::z\\n"; printf "::error::x\\n::add-mask::y\\n::stop-commands::z\\n" >&2; exit 2';
      const file = ws().write(
        'loud.yaml',
        workflow({
          policy: { processAllowlist: ['sh'], approval: 'never' },
          outputs: { said: '${{ tasks.loud.output.stdout }}' },
          actions: { loud: { kind: 'builtin.shell.exec', command: '/bin/sh', args: ['-c', script] }, quiet: { kind: 'builtin.shell.exec', command: '/bin/sh', args: ['-c', script.replace('exit 2', 'exit 0')] } },
          tasks: [{ id: 'loud', uses: 'action:quiet' }, { id: 'fail', uses: 'action:loud', needs: ['loud'] }],
        }),
      );
      const failed = cli(['run', file]);
      expect(failed.status, failed.stderr).to.equal(4);
      const succeeded = cli(['run', ws().write('quiet.yaml', readFileSync(file, 'utf8').replace("uses: action:loud", 'uses: action:quiet'))]);
      expect(succeeded.status, succeeded.stderr).to.equal(0);
      // The text is shown, made inert.
      expect(succeeded.stdout).to.contain(':error::x');
      for (const result of [failed, succeeded]) {
        expect(commandLines(result.stdout)).to.deep.equal([]);
        expect(commandLines(result.stderr)).to.deep.equal([]);
      }
      expect(commandLines(read())).to.deep.equal([]);
      expect(read().split(/^# Run /m)).to.have.length(3);
    });
  });
});
