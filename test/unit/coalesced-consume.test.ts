import { expect } from 'chai';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { CoalescedConsumer, Consumer } from '../../src/http/coalesced-consume';

/**
 * A stand-in for rate-limiter-flexible's limiter that counts like its PostgreSQL store (consumed
 * points per key, refused over the quota) and answers only when told, so the test decides what is
 * in flight. The real limiter on PostgreSQL is exercised by test/rate-limits.test.ts.
 */
function countingStore(quota: number) {
  const counts = new Map<string, number>();
  const calls: { key: string; points: number; answer(): void; fail(err: unknown): void }[] = [];
  const limiter: Consumer = {
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
  return { limiter, calls, counts };
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
    const blocked: Consumer = { consume: () => Promise.reject(new RateLimiterRes(0, 500)) };
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
});
