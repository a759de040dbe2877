import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../errors';
import type { Caller } from './handler';

/**
 * Fair share of the database between organizations, per process. An organization's requests in
 * progress are held to its share; its further requests wait their turn here, after their body has
 * arrived (a slow upload holds only its own socket, never a turn) and before they ask the pool for
 * a connection.
 *
 * The share adapts to the organizations with requests in progress or waiting (N, counting the one
 * asking): `min(perOrganization, floor((poolSize - 1) / N))`, at least 1. One busy organization
 * gets `perOrganization` (by default half the pool); several together leave a connection free as
 * long as they are fewer than the pool, so another organization's request is let through at once;
 * and the requests let through are never more than the pool's connections. When none is free, a
 * freed turn goes to the waiting organization with the fewest requests in progress, among equals the
 * one given a turn least recently (a newcomer first), then the one waiting longest: a newcomer's
 * first request goes ahead of every busy organization's next one, however many are busy. An organization over its share (N grew while its requests ran) gets
 * no turn until it is under it. (A fixed half of the pool let two busy organizations take every
 * connection: a third one's read waited for the pool's timeout.)
 *
 * A request that would wait longer than `maxWaitMs`, or find `maxQueued` of its organization's
 * requests already waiting, is answered 503 with Retry-After instead.
 */
export interface FairShareOptions {
  perOrganization: number;
  /** Connections in the pool the requests share. */
  poolSize: number;
  maxQueued: number;
  maxWaitMs: number;
  caller(req: Request, res: Response): Promise<Caller | undefined>;
  /**
   * Requests the share does not hold: those whose use of the database is bounded elsewhere (a
   * coalesced single read: one statement of its kind at a time, pipeline.ts). They neither wait
   * here nor count against their organization's share.
   */
  unshared?(req: Request): boolean;
}

interface Waiter {
  turn(): void;
  /** Arrival order, across organizations: the longest waiting goes first among equals. */
  seq: number;
}

interface OrgState {
  running: number;
  waiting: Waiter[];
  /** When it last got a turn (in turns given, -1: never), for the round robin among equals. */
  servedAt: number;
}

export function fairShareLimit(poolMax: number): number {
  return Math.max(2, Math.floor(poolMax / 2));
}

/** One organization's share with `organizations` of them busy (the rule above). */
export function shareOf(perOrganization: number, poolSize: number, organizations: number): number {
  return Math.max(1, Math.min(perOrganization, Math.floor((poolSize - 1) / Math.max(1, organizations))));
}

function busy(message: string): ApiError {
  return new ApiError(503, 'unavailable', 'Service unavailable', [{ message }], { 'Retry-After': '1' });
}

export function fairShare({ perOrganization, poolSize, maxQueued, maxWaitMs, caller, unshared }: FairShareOptions) {
  const orgs = new Map<string, OrgState>();
  const share = () => shareOf(perOrganization, poolSize, orgs.size);
  let inProgress = 0;
  let arrivals = 0;
  let turns = 0;
  /** Whether `a` goes before `b` for the next turn. */
  const before = (a: OrgState, b: OrgState) =>
    a.running !== b.running ? a.running < b.running : a.servedAt !== b.servedAt ? a.servedAt < b.servedAt : a.waiting[0].seq < b.waiting[0].seq;

  /** Gives freed turns out, one at a time, to the waiting organization with the fewest in progress. */
  const admit = () => {
    while (inProgress < poolSize) {
      const limit = share();
      let next: OrgState | undefined;
      for (const state of orgs.values()) {
        if (!state.waiting.length || state.running >= limit) continue;
        if (!next || before(state, next)) next = state;
      }
      if (!next) return;
      next.running++;
      next.servedAt = turns++;
      inProgress++;
      next.waiting.shift()!.turn();
    }
  };

  /** An organization with nothing in progress or waiting no longer counts: the others' share may grow. */
  const settle = (orgId: string, state: OrgState) => {
    if (state.running === 0 && !state.waiting.length && orgs.get(orgId) === state) orgs.delete(orgId);
    admit();
  };

  const release = (orgId: string, state: OrgState) => {
    state.running--;
    inProgress--;
    settle(orgId, state);
  };

  return async function fairShareMiddleware(req: Request, res: Response, next: NextFunction): Promise<void> {
    if (unshared?.(req)) return next();
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
    if (!state) orgs.set(orgId, (state = { running: 0, waiting: [], servedAt: -1 }));
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
    if (s.running < share() && inProgress < poolSize) {
      s.running++;
      s.servedAt = turns++;
      inProgress++;
      phase = 'running';
      return next();
    }
    if (s.waiting.length >= maxQueued) {
      phase = 'done';
      return next(busy('Too many requests of your organization are in progress; retry shortly.'));
    }
    const admitted = await new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        seq: arrivals++,
        turn: () => {
          clearTimeout(timer);
          phase = 'running'; // the turn given by admit(): now this request's
          resolve(true);
        },
      };
      leaveLine = () => {
        clearTimeout(timer);
        const i = s.waiting.indexOf(waiter);
        if (i >= 0) s.waiting.splice(i, 1);
        resolve(false);
        settle(orgId, s);
      };
      const timer = setTimeout(() => {
        leaveLine!();
        phase = 'done';
      }, maxWaitMs);
      s.waiting.push(waiter);
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
