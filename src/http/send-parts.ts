import type { Response } from 'express';
import { logUnexpected } from './request-log';

/**
 * Writes a streamed body part by part, waiting for the socket to drain when its buffer is full,
 * so a slow client holds back the database rather than filling this process's memory. A client
 * that goes away stops the parts (their connection goes back to the pool). An error after the
 * first part cannot become a problem response any more: the connection is cut, so the client sees
 * a truncated body rather than a complete-looking one.
 */
export async function sendParts(res: Response, parts: AsyncGenerator<string, void>): Promise<void> {
  try {
    for await (const part of parts) {
      if (res.destroyed) break;
      if (!res.write(part)) await drained(res);
    }
  } catch (err) {
    if (!res.headersSent) throw err;
    logUnexpected(res, err);
    res.destroy();
    return;
  }
  if (!res.destroyed) res.end();
}

function drained(res: Response): Promise<void> {
  return new Promise((resolve) => {
    // The client may have gone (and 'close' fired) between the write and now.
    if (res.destroyed || !res.writableNeedDrain) return resolve();
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * Writes a body held whole in memory as parts (JsonParts): with its length, in one write of the
 * socket (corked), without joining the parts into one string first.
 */
export function sendWhole(res: Response, parts: readonly string[]): void {
  let length = 0;
  for (const part of parts) length += Buffer.byteLength(part);
  res.setHeader('Content-Length', length);
  res.cork();
  for (const part of parts) res.write(part);
  res.end();
  res.uncork();
}
