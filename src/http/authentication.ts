import type { NextFunction, Request, Response } from 'express';
import type { Authenticator } from '../auth/credentials';
import { ApiError } from '../errors';
import { repeatedHeader } from './raw-headers';
import { assertScopes } from '../auth/scopes';
import { contextOf } from './context';

/** RFC 6750 3.1: more than one credential is an invalid_request (400), not a choice of the first. */
const REPEATED = new ApiError(
  400,
  'validation-failed',
  'Validation failed',
  [{ message: 'header.Authorization: give one Authorization header, not several', field: 'header.Authorization', rule: 'single' }],
  { 'WWW-Authenticate': 'Bearer error="invalid_request", error_description="Give one Authorization header, not several."' },
);

/**
 * Authentication and authorization as an express middleware, before the body is parsed: a request
 * to an operation that requires a credential, with a missing or bad one (401) or one without the
 * operation's scope (403 insufficient_scope), is refused without reading or validating its body:
 * a read-only credential learns nothing about a write it may not make. The operation is the
 * one the request was routed to (the contract's, in the request's context); a request to no
 * operation passes on, for the router's 404 or 405. The caller is left in the request's context,
 * which openapi-backend's security handlers read.
 */
export function authentication(authenticate: Authenticator): (req: Request, res: Response, next: NextFunction) => void {
  return (req, res, next) => {
    const context = contextOf(req);
    const operation = context.operation;
    if (!operation?.security?.length) return next();
    if (repeatedHeader(req, 'authorization')) return next(REPEATED);
    authenticate(req.headers.authorization).then(({ caller, error }) => {
      if (error) return next(error);
      context.caller = caller;
      try {
        assertScopes(caller, operation);
      } catch (err) {
        return next(err);
      }
      next();
    }, next);
  };
}
