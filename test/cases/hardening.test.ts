// Hostile and unusual inputs: each gets a clean diagnostic and exit code, and leaves nothing half-done.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { expect } from 'chai';
import { baseEnv, runCli, startCli, workspace } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, finished, outcome, rows, runCount, shellWorkflow, useWorkspace, workflow } from './helpers.js';

describe('hardening', () => {
  const state = useWorkspace();
  const run = (extra: string[] = [], env = baseEnv()) => runCli(['run', state.ws.file('wf.yaml'), '--db', state.ws.db, '--output', 'json', ...extra], { env });

  it('a secret read from a file never reaches stdout, stderr or the database, even through outputs and when', () => {
    state.ws.write('dotenv', 'TOKEN=hunter2-s3cr3t\n');
    state.ws.write(
      'wf.yaml',
      workflow({
        policy: { processAllowlist: ['true'], environmentAllowlist: ['TOKEN'], approval: 'never' },
        outputs: { cfg: '${{ tasks.r.output.content }}' },
        actions: { use: { kind: 'builtin.shell.exec', command: 'true', env: { TOKEN: { env: 'MY_TOKEN' } } }, rd: { kind: 'builtin.read' }, set: { kind: 'builtin.assign' } },
        tasks: [
          { id: 'u', uses: 'action:use' },
          { id: 'r', uses: 'action:rd', with: { path: 'dotenv' } },
        ],
      }),
    );
    const ok = run([], baseEnv({ MY_TOKEN: 'hunter2-s3cr3t' }));
    expect(outcome(ok, 0).data.output).to.deep.equal({ cfg: 'TOKEN=[REDACTED]\n' });
    state.ws.write(
      'wf.yaml',
      workflow({
        policy: { processAllowlist: ['true'], environmentAllowlist: ['TOKEN'], approval: 'never' },
        actions: { use: { kind: 'builtin.shell.exec', command: 'true', env: { TOKEN: { env: 'MY_TOKEN' } } }, rd: { kind: 'builtin.read' }, set: { kind: 'builtin.assign' } },
        tasks: [
          { id: 'u', uses: 'action:use' },
          { id: 'r', uses: 'action:rd', with: { path: 'dotenv' } },
          { id: 's', uses: 'action:set', needs: ['r'], when: '${{ tasks.r.output.content }}' },
        ],
      }),
    );
    const failed = run([], baseEnv({ MY_TOKEN: 'hunter2-s3cr3t' }));
    errorDocument(failed, 4);
    expect(failed.stdout + failed.stderr).not.to.contain('hunter2');
    expect(failed.stderr).to.contain('[REDACTED]');
    const stored = JSON.stringify(rows(state.ws.db, 'SELECT * FROM tasks')) + JSON.stringify(rows(state.ws.db, 'SELECT * FROM effects'));
    expect(stored).not.to.contain('hunter2');
  });

  it('a four-character secret value does not corrupt the ledger, and one with quotes and backslashes is redacted in JSON', () => {
    state.ws.write('cfg.json', JSON.stringify({ password: 'pa"ss\\word' }));
    state.ws.write(
      'wf.yaml',
      workflow({
        policy: { processAllowlist: ['env'], environmentAllowlist: ['V', 'PW'], approval: 'never' },
        actions: { show: { kind: 'builtin.shell.exec', command: 'env', env: { V: { env: 'VERBOSE' }, PW: { env: 'DB_PASSWORD' } } }, rd: { kind: 'builtin.read' } },
        tasks: [
          { id: 'show', uses: 'action:show' },
          { id: 'rd', uses: 'action:rd', with: { path: 'cfg.json' } },
        ],
      }),
    );
    const result = run([], baseEnv({ VERBOSE: 'true', DB_PASSWORD: 'pa"ss\\word' }));
    const runId = outcome(result, 0).data.runId;
    const inspection = runCli(['inspect', runId, '--db', state.ws.db, '--output', 'json']);
    const view = outcome(inspection, 0).data;
    expect(view.run.state).to.equal('succeeded');
    const content = view.tasks.find((task: { taskId: string }) => task.taskId === 'rd').output.content as string;
    expect(JSON.parse(content.replace('[REDACTED]', 'x'))).to.deep.equal({ password: 'x' });
    expect(inspection.stdout).not.to.contain('pa\\"ss').and.not.to.contain('ss\\\\\\\\word');
  });

  it('a FIFO in the workspace fails the read or the write promptly instead of hanging', () => {
    execFileSync('mkfifo', [state.ws.file('pipe')]);
    execFileSync('mkdir', ['-p', state.ws.file('out')]);
    execFileSync('mkfifo', [state.ws.file('out/p')]);
    state.ws.write('wf.yaml', workflow({ policy: { approval: 'never', writableRoots: ['out'] }, actions: { rd: { kind: 'builtin.read' } }, tasks: [{ id: 'r', uses: 'action:rd', with: { path: 'pipe' } }] }));
    diagnosticWithCode(errorDocument(run(), 4), 'AGENTCTL_E_FILE_READ');
    state.ws.write('wf.yaml', workflow({ policy: { approval: 'never', writableRoots: ['out'] }, actions: { wr: { kind: 'builtin.write' } }, tasks: [{ id: 'w', uses: 'action:wr', with: { path: 'out/p', content: 'x' } }] }));
    diagnosticWithCode(errorDocument(run(), 4), 'AGENTCTL_E_FILE_WRITE');
  });

  it('a write that fails definitely is recorded failed and retried, even when cleaning up fails too', () => {
    state.ws.write('out/file.txt', 'a');
    state.ws.write('wf.yaml', workflow({ policy: { approval: 'never', writableRoots: ['out'] }, actions: { wr: { kind: 'builtin.write' } }, tasks: [{ id: 'w', uses: 'action:wr', retry: { maxAttempts: 2 }, with: { path: 'out/file.txt/x', content: 'x' } }] }));
    diagnosticWithCode(errorDocument(run(), 4), 'AGENTCTL_E_FILE_WRITE');
    expect(rows(state.ws.db, 'SELECT state, attempt FROM effects ORDER BY attempt')).to.deep.equal([
      { state: 'failed', attempt: 1 },
      { state: 'failed', attempt: 2 },
    ]);
  });

  it('JavaScript prototype names are not declared actions, inputs or vars', () => {
    state.ws.write('wf.yaml', workflow({ actions: { set: { kind: 'builtin.assign' } }, tasks: [{ id: 'a', uses: 'action:constructor' }] }));
    diagnosticWithCode(errorDocument(runCli(['check', state.ws.file('wf.yaml'), '--output', 'json']), 2), 'AGENTCTL_E_UNKNOWN_ACTION');
    state.ws.write('wf.yaml', workflow({ actions: { set: { kind: 'builtin.assign' } }, tasks: [{ id: 'a', uses: 'action:set', with: { v: '${{ inputs.constructor }}', w: '${{ vars.toString }}' } }] }));
    const document = errorDocument(runCli(['check', state.ws.file('wf.yaml'), '--output', 'json']), 2);
    expect(document.diagnostics.map((item: { code: string }) => item.code)).to.deep.equal(['AGENTCTL_E_TEMPLATE_REFERENCE', 'AGENTCTL_E_TEMPLATE_REFERENCE']);
    const proto = runCli(['run', state.ws.file('wf.yaml'), '--db', state.ws.db, '--inputs', '{"__proto__": {"x": 1}}', '--output', 'json']);
    diagnosticWithCode(errorDocument(proto, 2), 'AGENTCTL_E_INPUT_INVALID');
  });

  it('static mistakes are found by check, before any effect: with, outputSchema, NUL bytes', () => {
    const cases: [string, unknown][] = [
      ['with: null for an assert', workflow({ actions: { a: { kind: 'builtin.assert' } }, tasks: [{ id: 'a', uses: 'action:a', with: null }] })],
      ['an invalid outputSchema', shellWorkflow({ command: 'touch', args: ['did-it'] }, { processAllowlist: ['touch'], approval: 'never' }, { outputSchema: { type: 'nope' } })],
      ['a NUL byte in args', shellWorkflow({ command: 'echo', args: ['a\u0000b'] }, { processAllowlist: ['echo'], approval: 'never' })],
    ];
    for (const [title, text] of cases) {
      state.ws.write('wf.yaml', text as string);
      const result = runCli(['check', state.ws.file('wf.yaml'), '--output', 'json']);
      expect(result.status, title).to.equal(2);
      diagnosticWithCode(errorDocument(run(), 2), 'AGENTCTL_E_SCHEMA');
    }
    expect(existsSync(state.ws.file('did-it'))).to.equal(false);
    expect(runCount(state.ws.db)).to.equal(0);
  });

  it('a 1 MiB YAML alias bomb is refused by check and run (exit 2, document too large) and a run records nothing; 52 aliases pass', () => {
    const head = ['apiVersion: agentctl.dev/v1', 'kind: Workflow', 'metadata: { name: bomb }', 'spec:', `  vars:`, `    a: &a "${'x'.repeat(1000)}"`, '    b:'];
    const tail = ['  actions: { set: { kind: builtin.assign } }', '  tasks: [{ id: a, uses: "action:set" }]'];
    const row = `      - [${Array.from({ length: 20 }, () => '*a').join(', ')}]`;
    const rows = Array.from({ length: Math.floor((1024 * 1024 - 1500) / (row.length + 1)) }, () => row);
    const bomb = [...head, ...rows, ...tail, ''].join('\n');
    expect(bomb.length).to.be.within(1000 * 1024, 1024 * 1024);
    state.ws.write('wf.yaml', bomb);
    const found = diagnosticWithCode(errorDocument(runCli(['check', state.ws.file('wf.yaml'), '--output', 'json']), 2), 'AGENTCTL_E_DOCUMENT_TOO_LARGE');
    expect(found.message).to.equal('the document expands to more than 4194304 bytes (4 MiB) of JSON once its YAML aliases are expanded');
    // The alias at which the expansion certainly passes 4 MiB: the 5th of row 210 (line 217), after 4,184 others (each expands to 1,002 bytes).
    expect([found.line, found.column]).to.deep.equal([217, 26]);
    diagnosticWithCode(errorDocument(run(), 2), 'AGENTCTL_E_DOCUMENT_TOO_LARGE');
    expect(existsSync(state.ws.db)).to.equal(false);
    const tasks = Array.from({ length: 52 }, (_, index) => `    - { id: t${index}, uses: "action:set", with: *w }`);
    const aliases = [...head.slice(0, 4), '  vars: { base: &b [1, 2, 3] }', ...tail.slice(0, 1), '  tasks:', '    - { id: first, uses: "action:set", with: &w { a: *b, b: *b, c: *b } }', ...tasks, ''];
    state.ws.write('wf.yaml', aliases.join('\n'));
    expect(outcome(runCli(['check', state.ws.file('wf.yaml'), '--output', 'json']), 0).data.tasks).to.equal(53);
  });

  it('--workspace must be an existing folder; --input may come before the file', () => {
    state.ws.write('wf.yaml', workflow({ inputs: { name: 'x' }, actions: { set: { kind: 'builtin.assign' } }, tasks: [{ id: 'a', uses: 'action:set', with: { v: '${{ inputs.name }}' } }], outputs: { v: '${{ tasks.a.output.output.v }}' } }));
    diagnosticWithCode(errorDocument(run(['--workspace', state.ws.file('missing')]), 2), 'AGENTCTL_E_USAGE');
    diagnosticWithCode(errorDocument(run(['--workspace', state.ws.file('wf.yaml')]), 2), 'AGENTCTL_E_USAGE');
    const result = runCli(['run', '--input', 'name=Ada', state.ws.file('wf.yaml'), '--db', state.ws.db, '--output', 'json']);
    expect(outcome(result, 0).data.output).to.deep.equal({ v: 'Ada' });
  });

  it('twelve concurrent tasks print exactly one JSON document and nothing else', () => {
    const tasks = Array.from({ length: 12 }, (_, index) => ({ id: `t${index}`, uses: 'action:set', with: { index } }));
    state.ws.write('wf.yaml', workflow({ runtime: { maxConcurrency: 12 }, actions: { set: { kind: 'builtin.assign' } }, tasks }));
    const result = run();
    outcome(result, 0);
    expect(result.stderr).to.equal('');
  });

  it('a reader that closes stdout early gets no stack trace', async () => {
    const space = workspace();
    try {
      const child = startCli(['schema']);
      child.stdout!.destroy();
      const result = await finished(child);
      expect(result.stderr).not.to.contain('EPIPE');
      expect(result.status).to.equal(0);
    } finally {
      space.cleanup();
    }
  });
});
