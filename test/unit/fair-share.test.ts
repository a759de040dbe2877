import { expect } from 'chai';
import { EventEmitter } from 'node:events';
import type { NextFunction, Request, Response } from 'express';
import { fairShare } from '../../src/http/fair-share';
import type { Caller } from '../../src/http/handler';

/** A response as the middleware sees it: its events and whether the client has gone. */
function fakeResponse(): Response & EventEmitter {
  return Object.assign(new EventEmitter(), { destroyed: false, writableEnded: false }) as unknown as Response & EventEmitter;
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('fair share (unit)', () => {
  const middleware = () =>
    fairShare({ perOrganization: 1, poolSize: 10, maxQueued: 10, maxWaitMs: 60_000, caller: async () => ({ organizationId: 'org-1' }) as Caller });

  /** Runs a request through; `passed()` says whether it reached the next middleware. */
  function send(mw: ReturnType<typeof middleware>, res: Response) {
    let passed = 0;
    const done = mw({} as Request, res, (() => passed++) as NextFunction);
    return { done, passed: () => passed };
  }

  it('passes the slot to the next in line when a request is answered', async () => {
    const mw = middleware();
    const a = fakeResponse();
    const first = send(mw, a);
    await first.done;
    expect(first.passed()).to.equal(1);
    const second = send(mw, fakeResponse());
    await tick();
    expect(second.passed()).to.equal(0);
    a.emit('finish');
    await second.done;
    expect(second.passed()).to.equal(1);
  });

  /** One request running (a) and one waiting for the organization's only slot (b). */
  async function oneRunningOneWaiting() {
    const mw = middleware();
    const a = fakeResponse();
    await send(mw, a).done;
    const b = fakeResponse();
    const waiting = send(mw, b);
    await tick();
    return { mw, a, b, waiting };
  }

  it('gives the slot back when the request it passes to is gone in the same tick (every connection dropped at once)', async () => {
    const { mw, a, b, waiting } = await oneRunningOneWaiting();
    // A load generator stopping: the running request finishes and the waiting one's client leaves, together.
    a.emit('finish');
    Object.assign(b, { destroyed: true });
    b.emit('close');
    await waiting.done;
    expect(waiting.passed()).to.equal(0);
    // The organization's slot is free again: the next request goes straight through.
    const c = send(mw, fakeResponse());
    await tick();
    expect(c.passed()).to.equal(1);
  });

  it('takes a client that leaves while waiting out of the line', async () => {
    const { mw, a, b, waiting } = await oneRunningOneWaiting();
    Object.assign(b, { destroyed: true });
    b.emit('close');
    await waiting.done;
    a.emit('finish');
    const c = send(mw, fakeResponse());
    await tick();
    expect(c.passed()).to.equal(1);
    expect(waiting.passed()).to.equal(0);
  });

  it('lets a request it does not share (a coalesced single read) through at once, counting it nowhere', async () => {
    const mw = fairShare({
      perOrganization: 1,
      poolSize: 10,
      maxQueued: 10,
      maxWaitMs: 60_000,
      caller: async () => ({ organizationId: 'org-1' }) as Caller,
      unshared: (req) => (req as unknown as { read?: boolean }).read === true,
    });
    const a = fakeResponse();
    await mw({} as Request, a, (() => undefined) as NextFunction);
    // The organization's one slot is taken: its next shared request waits, a read does not.
    let waited = 0;
    const waiting = mw({} as Request, fakeResponse(), (() => waited++) as NextFunction);
    const reads = Array.from({ length: 3 }, () => {
      let passed = 0;
      void mw({ read: true } as unknown as Request, fakeResponse(), (() => passed++) as NextFunction);
      return () => passed;
    });
    await tick();
    expect(reads.map((passed) => passed())).to.deep.equal([1, 1, 1]);
    expect(waited).to.equal(0);
    // The reads took no slot: the one freed goes to the request waiting.
    a.emit('finish');
    await waiting;
    expect(waited).to.equal(1);
  });

  describe('the share adapts to the organizations busy', () => {
    /** A pool of 10 and a lone organization's share of 5; the request's `org` is its caller's organization. */
    const shared = () =>
      fairShare({
        perOrganization: 5,
        poolSize: 10,
        maxQueued: 100,
        maxWaitMs: 60_000,
        caller: async (req) => ({ organizationId: (req as unknown as { org: string }).org }) as Caller,
      });

    /** Sends n requests of an organization; `inProgress()` are those let through and not finished. */
    async function flood(mw: ReturnType<typeof shared>, org: string, n: number) {
      const sent = Array.from({ length: n }, () => {
        const res = fakeResponse();
        const r = { res, passed: false, finished: false, finish: () => ((r.finished = true), res.emit('finish')) };
        void mw({ org } as unknown as Request, res, (() => (r.passed = true)) as NextFunction);
        return r;
      });
      await tick();
      return { inProgress: () => sent.filter((r) => r.passed && !r.finished) };
    }
    const counts = (orgs: { inProgress(): unknown[] }[]) => orgs.map((o) => o.inProgress().length);

    it('two busy organizations leave a connection free: a third one is let through at once', async () => {
      const mw = shared();
      const a = await flood(mw, 'a', 20);
      const b = await flood(mw, 'b', 20);
      expect(counts([a, b])).to.deep.equal([5, 4]); // alone: half the pool; two busy: floor(9 / 2)
      const c = await flood(mw, 'c', 1);
      expect(counts([c])).to.deep.equal([1]);
      // Three busy: a share is 3; a and b get no turn until they are under it.
      a.inProgress()[0].finish();
      b.inProgress()[0].finish();
      await tick();
      expect(counts([a, b])).to.deep.equal([4, 3]);
      a.inProgress()[0].finish();
      a.inProgress()[0].finish();
      await tick();
      expect(counts([a, b])).to.deep.equal([3, 3]);
    });

    it('with more busy organizations than connections, a newcomer goes ahead of every busy one', async () => {
      const mw = shared();
      const busyOnes = [];
      for (let i = 0; i < 12; i++) busyOnes.push(await flood(mw, `busy-${i}`, 5));
      // Never more let through than the pool's 10 connections.
      expect(counts(busyOnes)).to.deep.equal([5, 4, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
      const newcomer = await flood(mw, 'newcomer', 1);
      expect(counts([newcomer])).to.deep.equal([0]);
      // A freed turn goes to an organization with none in progress, never given one first (by arrival).
      busyOnes[0].inProgress()[0].finish();
      await tick();
      expect(counts([...busyOnes, newcomer])).to.deep.equal([4, 4, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
      for (const r of [...busyOnes[0].inProgress(), ...busyOnes[1].inProgress()]) r.finish();
      await tick();
      expect(counts([...busyOnes, newcomer])).to.deep.equal([0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0]);
      // busy-1 and busy-2 have waited longer, but were given turns: the newcomer goes first.
      busyOnes[2].inProgress()[0].finish();
      await tick();
      expect(counts([...busyOnes, newcomer])).to.deep.equal([0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
    });
  });
});
