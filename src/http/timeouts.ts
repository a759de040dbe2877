import type { ServerOptions } from 'node:http';
import type express from 'express';

/** The express app setting that carries the HTTP server options (read by server.ts when it creates the server). */
export const SERVER_OPTIONS = 'http server options';

/**
 * Bounds on slow clients: `headersTimeout` for the request line and headers, `requestTimeout` for
 * the whole request including its body; past either, node answers 408 and closes the connection,
 * so a client trickling its body cannot hold a socket (and the request's place) indefinitely.
 * Node checks these every `connectionsCheckingInterval` (30 s by default, which would let a slow
 * client linger that much longer): checked at a fraction of the shorter bound instead.
 */
export function serverTimeouts(requestTimeoutMs: number, headersTimeoutMs: number): ServerOptions {
  const headersTimeout = Math.min(headersTimeoutMs, requestTimeoutMs);
  return {
    requestTimeout: requestTimeoutMs,
    headersTimeout,
    connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(headersTimeout / 4))),
  };
}

export function setServerTimeouts(app: express.Express, requestTimeoutMs: number, headersTimeoutMs: number): void {
  app.set(SERVER_OPTIONS, serverTimeouts(requestTimeoutMs, headersTimeoutMs));
}
