// Whether anybody still drives a `running` run, from its lease: the owner `host:pid:nonce` and its expiry.
import { hostname } from 'node:os';
import { expect } from 'chai';
import { liveness } from '../../core/store/liveness.js';

describe('liveness of a running run', () => {
  const now = Date.now();
  const running = (owner: string | null, expiresIn = 30_000) => ({ state: 'running', lease_owner: owner, lease_expires_at: owner === null ? null : now + expiresIn });

  it('is null for a run that is not running, interrupted without a lease or with an expired one', () => {
    expect(liveness({ state: 'succeeded', lease_owner: null, lease_expires_at: null }, now)).to.equal(null);
    expect(liveness(running(null), now)).to.equal('interrupted');
    expect(liveness(running(`${hostname()}:${process.pid}:aaaa`, -1), now)).to.equal('interrupted');
  });

  it("is active for a live process of this host and for another host's unexpired lease", () => {
    expect(liveness(running(`${hostname()}:${process.ppid}:aaaa`), now)).to.equal('active');
    expect(liveness(running('other-host:1:aaaa'), now)).to.equal('active');
  });

  it('is interrupted for a process of this host that is gone, and for this very pid under another lease (a reused pid, as pid 1 in a replacement container)', () => {
    expect(liveness(running(`${hostname()}:2147483646:aaaa`), now)).to.equal('interrupted');
    expect(liveness(running(`${hostname()}:${process.pid}:aaaa`), now)).to.equal('interrupted');
    // Its own lease, named as `self`, is this process driving the run.
    expect(liveness(running(`${hostname()}:${process.pid}:bbbb`), now, `${hostname()}:${process.pid}:bbbb`)).to.equal('active');
  });
});
