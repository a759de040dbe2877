import type { NextFunction, Request, Response } from 'express';
import { badRequest, ProblemItem } from './errors';
import { prototypeKeysOf } from './query';

/**
 * Input no resource can store or should ever see, refused once for every request, before routing:
 * - a NUL byte (U+0000) in the path, a query key or value, or a JSON body string or key:
 *   PostgreSQL text cannot hold it (error 22021), so it would otherwise surface as a database error;
 * - query keys qs drops silently (`__proto__`, `constructor`, ... : see query.ts), which would
 *   otherwise turn `filter[__proto__][x]=1` into an unfiltered list;
 * - JSON nested deeper than any schema goes: walking or serializing it later could exhaust the stack.
 * The walks are iterative so that no input, however deep, can overflow the stack here.
 */
export const MAX_BODY_DEPTH = 64;

const NUL = '\u0000';

function nulItem(field: string): ProblemItem {
  return { message: `${field}: must not contain a NUL byte (\\u0000)`, field, rule: 'noNulByte' };
}

/** Every NUL-carrying key or value of a parsed value, as `prefix.key[0].key`; and whether it nests too deeply. */
function inspect(root: unknown, prefix: string, maxDepth: number): { items: ProblemItem[]; tooDeep: boolean } {
  const items: ProblemItem[] = [];
  const stack: [unknown, string, number][] = [[root, prefix, 0]];
  let tooDeep = false;
  while (stack.length && items.length < 20) {
    const [value, field, depth] = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes(NUL)) items.push(nulItem(field));
      continue;
    }
    if (!value || typeof value !== 'object') continue;
    if (depth >= maxDepth) {
      tooDeep = true;
      continue;
    }
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], `${field}[${i}]`, depth + 1]);
      continue;
    }
    for (const key of Object.keys(value)) {
      const name = `${field}.${key.replaceAll(NUL, '\\u0000')}`;
      if (key.includes(NUL)) items.push(nulItem(name));
      stack.push([(value as Record<string, unknown>)[key], name, depth + 1]);
    }
  }
  return { items, tooDeep };
}

function pathHasNul(path: string): boolean {
  return path.includes(NUL) || /%00/i.test(path);
}

export function inputGuard(req: Request, _res: Response, next: NextFunction): void {
  const items: ProblemItem[] = [];
  if (pathHasNul(req.path)) items.push(nulItem('path'));
  const q = req.url.indexOf('?');
  if (q >= 0) {
    for (const key of prototypeKeysOf(req.url.slice(q + 1))) {
      const field = `query.${key.join('.')}`;
      const last = key[key.length - 1];
      const message = key[0] === 'filter' && key.length === 2 ? `unknown filter field or operator ${last}` : `unknown query parameter ${key.join('.')}`;
      items.push({ message: `${field}: ${message}`, field, rule: 'additionalProperties' });
    }
    // Parsed only when there is a query string (express parses req.query on every access).
    items.push(...inspect(req.query, 'query', 16).items);
  }
  if (req.body !== undefined && typeof req.body === 'object') {
    const body = inspect(req.body, 'body', MAX_BODY_DEPTH);
    items.push(...body.items);
    if (body.tooDeep) items.push({ message: `body: nests deeper than ${MAX_BODY_DEPTH} levels`, field: 'body', rule: 'maxDepth' });
  }
  if (items.length) return next(badRequest(items));
  next();
}
