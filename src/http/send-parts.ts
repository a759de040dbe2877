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
  // One listener each for the whole response. When the response is compressed (http/compression.ts),
  // `drain` is the compressor's: compression's `res.on` hands the listener to it, but `res.off`
  // could not take it back, so one listener per wait would pile up there.
  let wake: (() => void) | undefined;
  const resume = () => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  res.on('drain', resume);
  res.on('close', resume);
  try {
    for await (const part of parts) {
      if (res.destroyed) break;
      // Full: wait until it drains (or the client goes away, which also ends the loop).
      if (!res.write(part)) await new Promise<void>((resolve) => (res.destroyed ? resolve() : (wake = resolve)));
    }
  } catch (err) {
    if (!res.headersSent) throw err;
    logUnexpected(res, err);
    res.destroy();
    return;
  }
  if (!res.destroyed) res.end();
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
