import { expect } from 'chai';
import { getEventListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { boundedSignal } from '../../core/runner/deadline.js';

describe('bounded signal (deadline)', () => {
  it('aborts with a TimeoutError when the time is up, and says it expired', async () => {
    const reasons: unknown[] = [];
    const deadline = boundedSignal(new AbortController().signal, 20, 'too slow', (reason) => reasons.push(reason));
    const signal = deadline.signal;
    expect(signal.aborted).to.equal(false);
    await sleep(60);
    expect(signal.aborted).to.equal(true);
    expect(signal.reason).to.be.instanceOf(DOMException).and.include({ name: 'TimeoutError', message: 'too slow' });
    expect(deadline.expired()).to.equal(true);
    expect(reasons).to.deep.equal([signal.reason]);
    deadline.dispose();
  });

  it("aborts with the parent's reason when the parent is aborted first, before or after the signal is read", () => {
    const parent = new AbortController();
    const calls: unknown[] = [];
    const read = boundedSignal(parent.signal, 60_000, 'x', (reason) => calls.push(reason));
    const early = read.signal;
    const unread = boundedSignal(parent.signal, 60_000, 'x');
    parent.abort('stop');
    expect(early.aborted).to.equal(true);
    expect(early.reason).to.equal('stop');
    expect(unread.signal.reason).to.equal('stop');
    expect(read.expired()).to.equal(false);
    expect(calls).to.deep.equal(['stop']);
    read.dispose();
    unread.dispose();
  });

  it('is aborted from the start under a parent that already is', () => {
    const parent = new AbortController();
    parent.abort('gone');
    const calls: unknown[] = [];
    const deadline = boundedSignal(parent.signal, 60_000, 'x', (reason) => calls.push(reason));
    expect(deadline.signal.aborted).to.equal(true);
    expect(deadline.signal.reason).to.equal('gone');
    expect(calls).to.deep.equal(['gone']);
    deadline.dispose();
  });

  it('does nothing once disposed, and keeps one listener on the parent however many deadlines it holds', async () => {
    const parent = new AbortController();
    const calls: unknown[] = [];
    const deadlines = Array.from({ length: 50 }, () => boundedSignal(parent.signal, 20, 'x', (reason) => calls.push(reason)));
    expect(getEventListeners(parent.signal, 'abort')).to.have.length(1);
    for (const deadline of deadlines) deadline.dispose();
    await sleep(60);
    parent.abort('late');
    expect(calls).to.deep.equal([]);
    expect(deadlines.every((deadline) => !deadline.signal.aborted && !deadline.expired())).to.equal(true);
  });
});
