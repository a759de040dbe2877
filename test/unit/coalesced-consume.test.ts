import { expect } from 'chai';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { CoalescedConsumer, Consumer, GIVE_BACK_MARGIN_MS, LEASE_HORIZON_MS } from '../../src/http/coalesced-consume';

/**
 * A stand-in for rate-limiter-flexible's limiter that counts like its PostgreSQL store (consumed
 * points per key, refused over the quota) and answers only when told, so the test decides what is
 * in flight. The real limiter on PostgreSQL is exercised by test/rate-limits.test.ts.
 */
function countingStore(quota: number) {
  const counts = new Map<string, number>();
  const calls: { key: string; points: number; answer(): void; fail(err: unknown): void }[] = [];
  const rewards: { key: string; points: number }[] = [];
  const limiter: Consumer = {
    reward: (key, points) => {
      rewards.push({ key, points });
      const consumed = (counts.get(key) ?? 0) - points;
      counts.set(key, consumed);
      return Promise.resolve(new RateLimiterRes(Math.max(0, quota - consumed), 1000, consumed, false));
    },
    consume: (key, points) =>
      new Promise((resolve, reject) => {
        calls.push({
          key,
          points,
          answer: () => {
            const consumed = (counts.get(key) ?? 0) + points;
            counts.set(key, consumed);
            const res = new RateLimiterRes(Math.max(0, quota - consumed), 1000, consumed, consumed === points);
            if (consumed > quota) reject(res);
            else resolve(res);
          },
          fail: reject,
        });
      }),
  };
  return { limiter, calls, counts, rewards };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('coalesced consume (unit)', () => {
  it('counts a lone request as one consume of one point', async () => {
    const { limiter, calls } = countingStore(10);
    const c = new CoalescedConsumer(limiter, 10);
    const one = c.consume('k');
    calls[0].answer();
    expect(await one).to.deep.equal({ remainingPoints: 9, msBeforeNext: 1000, limited: false });
    expect(calls.map((x) => x.points)).to.deep.equal([1]);
  });

  it('counts the requests that arrive while a consume is in flight as one consume of their number', async () => {
    const { limiter, calls } = countingStore(10);
    const c = new CoalescedConsumer(limiter, 10);
    const all = Array.from({ length: 5 }, () => c.consume('k'));
    const other = c.consume('other key');
    calls[0].answer();
    await settle();
    expect(calls.map((x) => [x.key, x.points])).to.deep.equal([
      ['k', 1],
      ['other key', 1],
      ['k', 4],
    ]);
    calls[1].answer();
    calls[2].answer();
    const counted = await Promise.all(all);
    expect(counted.map((x) => x.remainingPoints)).to.deep.equal([9, 8, 7, 6, 5]);
    expect((await other).remainingPoints).to.equal(9);
  });

  it('refuses exactly the requests past the quota, each told its own remainder', async () => {
    const { limiter, calls, counts } = countingStore(3);
    const c = new CoalescedConsumer(limiter, 3);
    const first = c.consume('k');
    const rest = Array.from({ length: 5 }, () => c.consume('k'));
    calls[0].answer();
    await settle();
    calls[1].answer();
    const counted = await Promise.all([first, ...rest]);
    expect(counted.map((x) => x.limited)).to.deep.equal([false, false, false, true, true, true]);
    expect(counted.map((x) => x.remainingPoints)).to.deep.equal([2, 1, 0, 0, 0, 0]);
    expect(counts.get('k')).to.equal(6);
  });

  it('refuses the whole batch when the limiter blocks the key in memory (no count)', async () => {
    const blocked: Consumer = { consume: () => Promise.reject(new RateLimiterRes(0, 500)), reward: () => Promise.reject(new Error('unused')) };
    const c = new CoalescedConsumer(blocked, 3);
    const counted = await Promise.all([c.consume('k'), c.consume('k')]);
    expect(counted.every((x) => x.limited && x.msBeforeNext === 500)).to.equal(true);
  });

  it('passes a store error to every request of the batch, and the next batch still runs', async () => {
    const { limiter, calls } = countingStore(10);
    const c = new CoalescedConsumer(limiter, 10);
    const failing = [c.consume('k'), c.consume('k')].map((p) =>
      p.then(
        () => 'counted',
        (err: unknown) => err,
      ),
    );
    const boom = new Error('connection lost');
    calls[0].fail(boom);
    await settle();
    calls[1].fail(boom);
    expect(await Promise.all(failing)).to.deep.equal([boom, boom]);
    const later = c.consume('k');
    calls[2].answer();
    expect((await later).limited).to.equal(false);
  });

  describe('peek and giveBack (a request refused by another window has no effect on this one)', () => {
    it('peek tells the last known state without counting, limited once the quota is used up', async () => {
      const { limiter, calls } = countingStore(2);
      const c = new CoalescedConsumer(limiter, 2);
      expect(c.peek('k')).to.equal(undefined);
      const first = c.consume('k');
      calls[0].answer();
      await first;
      expect(c.peek('k')).to.include({ remainingPoints: 1, limited: false });
      await settle();
      const second = c.consume('k');
      calls[1].answer();
      await second;
      expect(c.peek('k')).to.include({ remainingPoints: 0, limited: true });
      expect(calls).to.have.length(2);
    });

    it('gives the positions of one tick back to the store in one reward; the next request takes the freed position', async () => {
      const { limiter, calls, counts, rewards } = countingStore(10);
      const c = new CoalescedConsumer(limiter, 10);
      const first = c.consume('k');
      const rest = Array.from({ length: 3 }, () => c.consume('k'));
      calls[0].answer();
      await settle();
      calls[1].answer();
      const counted = await Promise.all([first, ...rest]);
      // The last two were refused elsewhere: their remainder is told without them.
      expect(c.giveBack('k', counted[2]).remainingPoints).to.equal(8);
      expect(c.giveBack('k', counted[3]).remainingPoints).to.equal(7);
      await settle();
      expect(rewards).to.deep.equal([{ key: 'k', points: 2 }]);
      expect(counts.get('k')).to.equal(2);
      expect(c.peek('k')).to.include({ remainingPoints: 8 });
      const next = c.consume('k');
      calls[2].answer();
      expect((await next).remainingPoints).to.equal(7);
    });

    it('gives a position back to the lease of its key without a statement', async () => {
      const { limiter, calls, rewards } = countingStore(100_000);
      const c = new CoalescedConsumer(limiter, 100_000, () => 1_000_000);
      const one = async () => {
        const p = c.consume('k');
        calls[calls.length - 1].answer();
        return p;
      };
      await one();
      const leasing = await one(); // at once: takes a lease
      expect(calls[1].points).to.be.above(1);
      const statements = calls.length;
      expect(c.giveBack('k', leasing).remainingPoints).to.equal(99_999);
      const next = await c.consume('k');
      expect(next.remainingPoints).to.equal(99_998);
      await settle();
      expect(calls).to.have.length(statements);
      expect(rewards).to.deep.equal([]);
    });

    it('gives nothing back for a refused position or a window about to reset', async () => {
      const { limiter, rewards } = countingStore(10);
      const c = new CoalescedConsumer(limiter, 10);
      const refused = { remainingPoints: 0, msBeforeNext: 500, limited: true };
      expect(c.giveBack('k', refused)).to.deep.equal(refused);
      const late = { remainingPoints: 3, msBeforeNext: GIVE_BACK_MARGIN_MS - 1, limited: false };
      expect(c.giveBack('k', late)).to.deep.equal(late);
      await settle();
      expect(rewards).to.deep.equal([]);
    });
  });

  describe('leases', () => {
    /** A clock the test moves. */
    const clock = () => {
      let t = 1_000_000;
      return { now: () => t, advance: (ms: number) => (t += ms) };
    };

    /** One request through the consumer; its statement, if it made one, is answered at once. */
    async function one(c: CoalescedConsumer, calls: { answer(): void }[]) {
      const before = calls.length;
      const p = c.consume('k');
      if (calls.length > before) calls[calls.length - 1].answer();
      return { counted: await p, statement: calls.length > before };
    }

    it('a key with steady traffic leases the positions its next few milliseconds need: those requests make no statement, each still told its own remainder', async () => {
      const t = clock();
      const { limiter, calls, counts } = countingStore(100_000);
      const c = new CoalescedConsumer(limiter, 100_000, t.now);
      const seen: { remaining: number; statement: boolean }[] = [];
      // 1 request per millisecond: about LEASE_HORIZON_MS requests' worth per lease.
      for (let i = 0; i < 200; i++) {
        const { counted, statement } = await one(c, calls);
        seen.push({ remaining: counted.remainingPoints, statement });
        t.advance(1);
      }
      expect(seen.map((x) => x.remaining)).to.deep.equal(Array.from({ length: 200 }, (_, i) => 100_000 - i - 1));
      const statements = seen.filter((x) => x.statement).length;
      expect(statements).to.be.below(200 / (LEASE_HORIZON_MS / 2));
      // The count in the store runs ahead of the requests by at most one lease.
      expect(counts.get('k')! - 200).to.be.within(0, 2 * LEASE_HORIZON_MS);
    });

    it('one request at a time at a slow pace takes no lease (every request is a statement, the count exact)', async () => {
      const t = clock();
      const { limiter, calls, counts } = countingStore(100_000);
      const c = new CoalescedConsumer(limiter, 100_000, t.now);
      for (let i = 0; i < 5; i++) {
        expect((await one(c, calls)).statement).to.equal(true);
        t.advance(LEASE_HORIZON_MS * 4);
      }
      expect(counts.get('k')).to.equal(5);
    });

    it('never leases more than 1/20 of the quota, nor past it, and takes none under a quota of 20', async () => {
      const t = clock();
      const big = countingStore(200);
      const c = new CoalescedConsumer(big.limiter, 200, t.now);
      for (let i = 0; i < 300; i++) await one(c, big.calls); // no time passes: the fastest pace
      expect(Math.max(...big.calls.map((x) => x.points))).to.equal(10);
      const small = countingStore(19);
      const d = new CoalescedConsumer(small.limiter, 19, t.now);
      const answers = [];
      for (let i = 0; i < 25; i++) answers.push((await one(d, small.calls)).counted);
      expect(small.calls.every((x) => x.points === 1)).to.equal(true);
      expect(answers.filter((x) => !x.limited)).to.have.length(19);
    });

    it('refuses exactly past the quota when the last lease ends there', async () => {
      const t = clock();
      const { limiter, calls } = countingStore(60);
      const c = new CoalescedConsumer(limiter, 60, t.now);
      const answers = [];
      for (let i = 0; i < 80; i++) answers.push((await one(c, calls)).counted);
      expect(answers.map((x) => x.limited)).to.deep.equal(Array.from({ length: 80 }, (_, i) => i >= 60));
      expect(answers.slice(0, 60).map((x) => x.remainingPoints)).to.deep.equal(Array.from({ length: 60 }, (_, i) => 59 - i));
    });

    it('a lease ends when its window resets: the next request makes a statement', async () => {
      const t = clock();
      const { limiter, calls } = countingStore(100_000);
      const c = new CoalescedConsumer(limiter, 100_000, t.now);
      await one(c, calls);
      await one(c, calls); // at once: the pace asks for a lease
      expect(calls[1].points).to.be.above(1);
      expect((await one(c, calls)).statement).to.equal(false);
      t.advance(1000); // the store's window (msBeforeNext 1000) has reset
      expect((await one(c, calls)).statement).to.equal(true);
    });

    it('requests that waited on a statement take the positions it leased before another statement runs', async () => {
      const t = clock();
      const { limiter, calls } = countingStore(100_000);
      const c = new CoalescedConsumer(limiter, 100_000, t.now);
      await one(c, calls);
      const leasing = c.consume('k'); // at once: asks for a lease
      const waiting = Array.from({ length: 3 }, () => c.consume('k'));
      expect(calls).to.have.length(2);
      calls[1].answer();
      const counted = await Promise.all([leasing, ...waiting]);
      await settle();
      expect(calls).to.have.length(2);
      expect(counted.map((x) => x.remainingPoints)).to.deep.equal([99_998, 99_997, 99_996, 99_995]);
    });
  });
});
