import type { IncomingMessage } from 'node:http';

/**
 * Whether the request carries the header more than once. Node keeps the first `Authorization` of
 * several and joins repeated unknown headers with ", ", so neither `req.headers` value tells a
 * repeated header from one value; the raw list does. `name` is lower case.
 */
export function repeatedHeader(req: IncomingMessage, name: string): boolean {
  const raw = req.rawHeaders;
  let seen = 0;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i].length === name.length && raw[i].toLowerCase() === name && ++seen > 1) return true;
  }
  return false;
}
