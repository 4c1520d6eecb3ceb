// Interactive approval through a real pseudo-terminal (util-linux `script`), answered like a person would.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { expect } from 'chai';
import Database from 'better-sqlite3';
import { BIN, baseEnv, workspace } from '../support/cli.js';
import { shellWorkflow } from './helpers.js';

const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/** Runs agentctl on a terminal and types `answer` once the approval prompt shows. */
function runOnTerminal(args: string[], answer: string, cwd: string): Promise<{ status: number | null; screen: string }> {
  const command = [process.execPath, BIN, ...args].map(quote).join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], { cwd, env: baseEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
  let screen = '';
  let answered = false;
  child.stdout.on('data', (chunk: Buffer) => {
    screen += chunk.toString();
    if (!answered && screen.includes('approve? [y/N]')) {
      answered = true;
      child.stdin.write(`${answer}\n`);
    }
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  return new Promise((resolve) => child.on('close', (status) => (clearTimeout(timer), resolve({ status, screen }))));
}

describe('interactive approval at a terminal', function () {
  before(function () {
    if (!existsSync('/usr/bin/script')) this.skip();
  });

  const document = shellWorkflow({ command: 'sh', args: ['-c', 'touch marker'] }, { processAllowlist: ['sh'] });

  it('an approved effect runs once, with the approval recorded with its actor', async () => {
    const space = workspace({ 'wf.yaml': document });
    try {
      const { status, screen } = await runOnTerminal(['run', 'wf.yaml', '--db', space.db], 'y', space.dir);
      expect(status, screen).to.equal(0);
      expect(screen).to.contain('approval needed for task cmd: process.exec');
      expect(existsSync(space.file('marker'))).to.equal(true);
      const db = new Database(space.db, { readonly: true });
      const approvals = db.prepare('SELECT state, actor, decision_reason FROM approvals').all() as { state: string; actor: string }[];
      const effects = db.prepare('SELECT state FROM effects').all();
      db.close();
      expect(approvals).to.have.length(1);
      expect(approvals[0]).to.include({ state: 'approved', decision_reason: 'approved at the terminal' });
      expect(approvals[0]!.actor).to.match(/@terminal$/);
      expect(effects).to.deep.equal([{ state: 'succeeded' }]);
    } finally {
      space.cleanup();
    }
  });

  it('JSON mode never prompts: policy.nonInteractive decides (pause, exit 3)', async () => {
    const space = workspace({ 'wf.yaml': document });
    try {
      const { status, screen } = await runOnTerminal(['run', 'wf.yaml', '--db', space.db, '--output', 'json'], 'y', space.dir);
      expect(status, screen).to.equal(3);
      expect(screen).not.to.contain('approve?');
      expect(existsSync(space.file('marker'))).to.equal(false);
    } finally {
      space.cleanup();
    }
  });

  it('a rejected effect never runs and fails the run with exit 4', async () => {
    const space = workspace({ 'wf.yaml': document });
    try {
      const { status, screen } = await runOnTerminal(['run', 'wf.yaml', '--db', space.db], 'n', space.dir);
      expect(status, screen).to.equal(4);
      expect(screen).to.contain('AGENTCTL_E_APPROVAL_REJECTED');
      expect(existsSync(space.file('marker'))).to.equal(false);
      const db = new Database(space.db, { readonly: true });
      const effects = db.prepare('SELECT * FROM effects').all();
      const audit = db.prepare(`SELECT type FROM audit_events WHERE type LIKE 'approval.%'`).all();
      db.close();
      expect(effects).to.deep.equal([]);
      expect(audit).to.deep.equal([{ type: 'approval.rejected' }]);
    } finally {
      space.cleanup();
    }
  });
});
