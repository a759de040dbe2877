import type { Request, Response } from 'express';
import type { Caller } from './handler';

/**
 * The request's caller, resolved once and shared by everything that needs it before the handler
 * (rate limits, fair share) and by the operation's security handler (backend.ts), which awaits the
 * same `res.locals.callerPromise`. When authentication runs as its own middleware and has set
 * `res.locals.caller`, that is used as it is.
 */
export function callerResolver(authenticate: (req: Request, res: Response) => Promise<Caller | undefined>) {
  return async (req: Request, res: Response): Promise<Caller | undefined> => {
    if (res.locals.caller) return res.locals.caller as Caller;
    res.locals.callerPromise ??= authenticate(req, res);
    const caller = (await res.locals.callerPromise) as Caller | undefined;
    if (caller) res.locals.caller = caller;
    return caller;
  };
}
