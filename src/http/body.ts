import express, { type NextFunction, type Request, type Response } from 'express';
import type { Operation } from 'openapi-backend';
import { ApiError } from '../errors';
import { contextOf } from './context';

/** The largest JSON body (a 1000-element batch fits with room to spare). */
export const BODY_LIMIT = '5mb';
const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPES = ['application/json', 'application/*+json'];

const hasBody = (req: Request) => Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;

/** Whether the contract gives the operation a form body (the token endpoint, RFC 6749). */
const takesForm = (operation: Operation) => (operation.requestBody as { content?: Record<string, unknown> } | undefined)?.content?.[FORM] !== undefined;

/**
 * A body must be JSON (an operation whose contract takes a form, the token endpoint, also a form;
 * it answers in its own format). Requests without a body, most of them, pass straight on, and so
 * do requests that match no operation: their answer is the 404 or 405 (a form POSTed to a
 * mistyped token path is told the path is wrong, not that its body should be JSON).
 */
export function jsonBody(): (req: Request, res: Response, next: NextFunction) => void {
  const parseJson = express.json({ limit: BODY_LIMIT, type: JSON_TYPES });
  const parseForm = express.urlencoded({ extended: false, limit: '16kb' });
  return (req, res, nextOf) => {
    const context = contextOf(req);
    const operation = context.operation;
    if (!hasBody(req) || !operation) return nextOf();
    // A body the parsers refuse (413, 415, malformed) is the transport's answer, not the
    // operation's: not recorded against it in test mode (src/http/coverage.ts).
    const next = (err?: unknown) => {
      if (err) context.onProblem = undefined;
      nextOf(err);
    };
    if (takesForm(operation)) return parseForm(req, res, (err) => (err ? next(err) : parseJson(req, res, next)));
    if (req.is(JSON_TYPES)) return parseJson(req, res, next);
    next(
      new ApiError(415, 'unsupported-media-type', 'Unsupported media type', [
        { message: `body: Content-Type must be application/json, not ${req.headers['content-type'] ?? 'missing'}`, field: 'body', rule: 'contentType' },
      ]),
    );
  };
}
