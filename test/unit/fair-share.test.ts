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
  const middleware = () => fairShare({ perOrganization: 1, maxQueued: 10, maxWaitMs: 60_000, caller: async () => ({ organizationId: 'org-1' }) as Caller });

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
});
