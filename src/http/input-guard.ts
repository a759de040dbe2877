import type { NextFunction, Request, Response } from 'express';
import { badRequest, ProblemItem } from '../errors';
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
/** Problems reported at most (the first ones, in document order). */
const MAX_ITEMS = 20;

function nulItem(field: string): ProblemItem {
  return { message: `${field}: must not contain a NUL byte (\\u0000)`, field, rule: 'noNulByte' };
}

/** `field[2]` for an array element, `field.key` for a member (a NUL in the key shown escaped). */
const memberName = (field: string, key: string | number) => (typeof key === 'number' ? `${field}[${key}]` : `${field}.${key.replaceAll(NUL, '\\u0000')}`);

/**
 * Every NUL-carrying key or value of a parsed value, as `prefix.key[0].key`; and whether it nests
 * too deeply. Scalars are checked where their container is walked, in document order, and nested
 * containers are walked after them (depth first, in order): a name is only built for a container
 * to walk or a value to report, not for each of the thousands of scalars of a batch.
 */
function inspect(root: unknown, prefix: string, maxDepth: number): { items: ProblemItem[]; tooDeep: boolean } {
  const items: ProblemItem[] = [];
  if (typeof root === 'string') return { items: root.includes(NUL) ? [nulItem(prefix)] : [], tooDeep: false };
  if (!root || typeof root !== 'object') return { items, tooDeep: false };
  const stack: [object, string, number][] = [[root, prefix, 0]];
  let tooDeep = false;
  const report = (field: string) => items.length < MAX_ITEMS && items.push(nulItem(field));
  while (stack.length && items.length < MAX_ITEMS) {
    const [container, field, depth] = stack.pop()!;
    const nested: [object, string, number][] = [];
    // A member: a string is checked, a container is queued (or too deep).
    const visit = (value: unknown, key: string | number) => {
      if (typeof value === 'string') {
        if (value.includes(NUL)) report(memberName(field, key));
      } else if (value && typeof value === 'object') {
        if (depth + 1 >= maxDepth) tooDeep = true;
        else nested.push([value, memberName(field, key), depth + 1]);
      }
    };
    if (Array.isArray(container)) {
      for (let i = 0; i < container.length; i++) visit(container[i], i);
    } else {
      for (const key of Object.keys(container)) {
        if (key.includes(NUL)) report(memberName(field, key));
        visit((container as Record<string, unknown>)[key], key);
      }
    }
    // Popped in order: the first nested container is walked next.
    for (let i = nested.length - 1; i >= 0; i--) stack.push(nested[i]);
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
