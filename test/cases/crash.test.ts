// The crash test at a small size (`npm run test:crash` runs it at full size): agentctl is SIGKILLed at random points
// 10 times, what is in doubt is reconciled from the file the tasks append to, the run is resumed each time, and every
// line is there exactly once.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'chai';
import { ROOT } from '../support/cli.js';

describe('crash safety (scripts/crash-test.mjs)', () => {
  it('up to 10 SIGKILLs of a 40-task run: each line appended exactly once, the run succeeds, every effect accounted for', function () {
    this.timeout(300_000);
    const result = spawnSync(process.execPath, [join(ROOT, 'scripts', 'crash-test.mjs'), '--tasks', '40', '--kills', '10', '--concurrency', '1'], { encoding: 'utf8', timeout: 290_000 });
    expect(result.status, `${result.stdout}\n${result.stderr}`).to.equal(0);
    const figures = JSON.parse(/crash test passed: (.*)$/m.exec(result.stdout)![1]!);
    // On a fast machine the run can finish before all 10 kills land; the script's own checks (every line exactly once,
    // the run succeeded, every effect accounted for) are what must hold. Some kills must still have landed mid-run.
    expect(figures.kills, result.stdout).to.be.at.least(3);
    expect(figures.tasks).to.equal(40);
  });
});
