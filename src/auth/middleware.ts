import type { NextFunction, Request, Response } from 'express';
import type { Authenticator } from './credentials';
import { ApiError } from '../errors';
import { repeatedHeader } from '../http/raw-headers';

/** RFC 6750 3.1: more than one credential is an invalid_request (400), not a choice of the first. */
const REPEATED = new ApiError(
  400,
  'validation-failed',
  'Validation failed',
  [{ message: 'header.Authorization: give one Authorization header, not several', field: 'header.Authorization', rule: 'single' }],
  { 'WWW-Authenticate': 'Bearer error="invalid_request", error_description="Give one Authorization header, not several."' },
);

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
    if (repeatedHeader(req, 'authorization')) return next(REPEATED);
    authenticate(req.headers.authorization).then(({ caller, error }) => {
      if (error) return next(error);
      res.locals.caller = caller;
      next();
    }, next);
  };
}
