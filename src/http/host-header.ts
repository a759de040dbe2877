import type { NextFunction, Request, Response } from 'express';
import { badRequest } from '../errors';
import { repeatedHeader } from './raw-headers';

/**
 * A request with more than one Host header is refused with 400 (RFC 9112 section 3.2: "A server
 * MUST respond with a 400 (Bad Request) status code to any HTTP/1.1 request message that lacks a
 * Host header field and to any request message that contains more than one Host header field").
 * Node keeps the first and drops the others, so a proxy and this service could disagree on which
 * host was asked for.
 */
export function singleHost(req: Request, _res: Response, next: NextFunction): void {
  if (!repeatedHeader(req, 'host')) return next();
  next(badRequest([{ message: 'The request carries more than one Host header.', field: 'header.host', rule: 'single' }]));
}
