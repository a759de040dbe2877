import type { NextFunction, Request, Response } from 'express';
import { ApiError, badRequest, internal } from '../errors';
import { fromDatabaseError } from '../db/pg-errors';
import { logUnexpected } from './request-log';
import { contextOf } from './context';

/**
 * Operations that answer their client errors in a format of their own (the token endpoint: RFC
 * 6749 5.2), by operationId: given the response and the problem's detail.
 */
export type OwnProblemFormats = Partial<Record<string, (res: Response, detail: string) => void>>;

/** Renders any thrown error as the one problem body. Never a stack trace, never SQL. */
export function sendProblem(err: unknown, req: Request, res: Response, own: OwnProblemFormats = {}): void {
  const problem = toApiError(err);
  const context = contextOf(req);
  if (problem.status >= 500 && !(err instanceof ApiError)) {
    // Logged for the operator (src/ops/log.ts); the client only sees the request id.
    logUnexpected(res, err);
  }
  if (res.headersSent) {
    context.onProblem?.(problem.status);
    return void res.end();
  }
  // An operation with its own format (the token endpoint, RFC 6749 5.2) answers whatever refused
  // the request (a body the parsers refuse, a NUL byte) in it: every malformed token request is an
  // invalid_request. Its 401 is the handler's, its 429 the shared problem.
  const ownFormat = context.operationId === undefined ? undefined : own[context.operationId];
  if (ownFormat && problem.status >= 400 && problem.status < 500 && problem.status !== 401 && problem.status !== 429) {
    context.onProblem?.(400);
    return ownFormat(res, problem.detail);
  }
  context.onProblem?.(problem.status);
  res.status(problem.status);
  for (const [k, v] of Object.entries(problem.headers)) res.setHeader(k, v);
  res.setHeader('Content-Type', 'application/problem+json; charset=utf-8');
  const body = JSON.stringify({
    type: `/problems/${problem.slug}`,
    title: problem.title,
    status: problem.status,
    detail: problem.detail,
    requestId: context.requestId,
    errors: problem.items,
  });
  // With its length: compression (http/compression.ts) would otherwise send a small body chunked.
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

interface BodyParserError {
  type?: string;
  status?: number;
  limit?: number;
  charset?: string;
}

/** `null`, `a number`, ... when `text` is a JSON value other than an object or array; else undefined. */
function jsonScalarKind(text: unknown): string | undefined {
  if (typeof text !== 'string') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (value === null) return 'null';
  return typeof value === 'object' ? undefined : `a ${typeof value}`;
}

function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const e = (err ?? {}) as BodyParserError;
  switch (e.type) {
    case 'entity.parse.failed': {
      // The parser takes only an object or an array: a body that is JSON but neither (null, 5,
      // "x", true) is told what it is, not that it is not JSON.
      const scalar = jsonScalarKind((err as { body?: unknown }).body);
      if (scalar) return badRequest([{ message: `body: must be a JSON object or array, not ${scalar}`, field: 'body', rule: 'type' }]);
      return badRequest([{ message: 'body: is not valid JSON', field: 'body', rule: 'json' }]);
    }
    case 'entity.too.large':
      return new ApiError(413, 'payload-too-large', 'Payload too large', [
        { message: `body: is larger than the limit of ${e.limit} bytes`, field: 'body', rule: 'maxSize' },
      ]);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ApiError(415, 'unsupported-media-type', 'Unsupported media type', [
        { message: 'body: the encoding or charset is not supported', field: 'body', rule: 'contentType' },
      ]);
    case 'request.aborted':
      return badRequest('body: the request was aborted');
  }
  if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) return badRequest('request: is invalid');
  const mapped = fromDatabaseError(err);
  return mapped ?? internal();
}

/** The pipeline's last step: every error, as a problem (or in the operation's own format). */
export function problemResponder(own: OwnProblemFormats = {}) {
  return function errorMiddleware(err: unknown, req: Request, res: Response, _next: NextFunction): void {
    sendProblem(err, req, res, own);
  };
}

export const errorMiddleware = problemResponder();
