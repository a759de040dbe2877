import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { createContext } from './context';

const VALID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The pipeline's first step: the request's context (context.ts), with its id. Every response
 * carries X-Request-Id: a valid incoming one is echoed, otherwise a new one.
 */
export function requestId(req: Request, res: Response, next: NextFunction): void {
  const incoming = req.headers['x-request-id'];
  const id = typeof incoming === 'string' && VALID.test(incoming) ? incoming : randomUUID();
  createContext(req, id);
  res.setHeader('X-Request-Id', id);
  next();
}
