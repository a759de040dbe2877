import type { NextFunction, Request, Response } from 'express';
import type { Authenticator } from './credentials';

/**
 * Authentication as an express middleware, before the body is parsed: a request to an operation
 * that requires a credential, with a missing or bad one, is refused without reading its body.
 * `requiresCredential` answers from the contract (the operation the request was routed to); a request to no
 * operation passes on, for the router's 404 or 405. The caller is left on `res.locals.caller`,
 * which openapi-backend's security handlers read.
 */
export function authentication(
  authenticate: Authenticator,
  requiresCredential: (req: Request, res: Response) => boolean,
): (req: Request, res: Response, next: NextFunction) => void {
  return (req, res, next) => {
    if (!requiresCredential(req, res)) return next();
    authenticate(req.headers.authorization).then(({ caller, error }) => {
      if (error) return next(error);
      res.locals.caller = caller;
      next();
    }, next);
  };
}
