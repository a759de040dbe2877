import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../errors';
import type { Caller } from './handler';

/**
 * Fair share of the database between organizations, per process: at most `perOrganization`
 * requests of one organization are in progress at a time (by default half the connection pool,
 * at least 2); its further requests wait their turn here, after their body has arrived (a slow
 * upload holds only its own socket, never a turn) and before they ask the pool for a connection. An organization flooding the service with batches therefore
 * holds at most that many connections, and another organization's request finds one free.
 *
 * A request that would wait longer than `maxWaitMs`, or find `maxQueued` of its organization's
 * requests already waiting, is answered 503 with Retry-After instead.
 */
export interface FairShareOptions {
  perOrganization: number;
  maxQueued: number;
  maxWaitMs: number;
  caller(req: Request, res: Response): Promise<Caller | undefined>;
}

interface OrgState {
  running: number;
  waiting: (() => void)[];
}

export function fairShareLimit(poolMax: number): number {
  return Math.max(2, Math.floor(poolMax / 2));
}

function busy(message: string): ApiError {
  return new ApiError(503, 'unavailable', 'Service unavailable', [{ message }], { 'Retry-After': '1' });
}

export function fairShare({ perOrganization, maxQueued, maxWaitMs, caller }: FairShareOptions) {
  const orgs = new Map<string, OrgState>();

  const release = (orgId: string, state: OrgState) => {
    const nextInLine = state.waiting.shift();
    if (nextInLine) return nextInLine(); // the slot passes on; `running` stays the same
    state.running--;
    if (state.running === 0) orgs.delete(orgId);
  };

  return async function fairShareMiddleware(req: Request, res: Response, next: NextFunction): Promise<void> {
    let who: Caller | undefined;
    try {
      who = await caller(req, res);
    } catch {
      return next(); // authentication itself failed: the security handler answers for it
    }
    if (!who) return next();
    if (res.destroyed || res.writableEnded) return; // the client has already left
    const orgId = who.organizationId;
    let state = orgs.get(orgId);
    if (!state) orgs.set(orgId, (state = { running: 0, waiting: [] }));
    const s = state;
    // One listener for the request's whole life, registered before it waits: a client that leaves
    // while waiting leaves the line; one that leaves, or is answered, after being admitted gives its
    // slot back. (Registered only after admission, a close in the same tick as the admission, as
    // when a load generator drops all its connections at once, went unseen and the slot leaked.)
    let phase: 'waiting' | 'running' | 'done' = 'waiting';
    let leaveLine: (() => void) | undefined;
    const ended = () => {
      if (phase === 'waiting') leaveLine?.();
      else if (phase === 'running') release(orgId, s);
      phase = 'done';
    };
    res.once('close', ended);
    res.once('finish', ended);
    if (s.running < perOrganization) {
      s.running++;
      phase = 'running';
      return next();
    }
    if (s.waiting.length >= maxQueued) {
      phase = 'done';
      return next(busy('Too many requests of your organization are in progress; retry shortly.'));
    }
    const admitted = await new Promise<boolean>((resolve) => {
      const turn = () => {
        clearTimeout(timer);
        phase = 'running'; // the slot passed on by release(): now this request's
        resolve(true);
      };
      leaveLine = () => {
        clearTimeout(timer);
        const i = s.waiting.indexOf(turn);
        if (i >= 0) s.waiting.splice(i, 1);
        resolve(false);
      };
      const timer = setTimeout(() => {
        leaveLine!();
        phase = 'done';
      }, maxWaitMs);
      s.waiting.push(turn);
    });
    // Gone between its turn and here: `ended` has already given the slot back. (`phase` is read
    // through a cast: the listeners change it while this function awaits.)
    if ((phase as string) === 'done' && admitted) return;
    if (!admitted) {
      if (res.writableEnded || res.destroyed) return;
      return next(busy("Your organization's requests waited too long for their turn; retry shortly."));
    }
    // The slot is held until the answer is complete (a streamed page holds its connection too).
    next();
  };
}
