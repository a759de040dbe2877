import compression from 'compression';
import type { RequestHandler } from 'express';

/**
 * Responses are compressed (brotli at quality 4, or gzip, as the request's `Accept-Encoding`
 * allows) when their type compresses (JSON, problem+json, the docs page, the contract) and their
 * body is at least 1 KiB: below that the headers and the CPU cost more than the bytes saved, so a
 * single read goes out as it is. A streamed bulk page is compressed as it streams (src/http/send-parts.ts
 * waits for the compressor to drain, so a slow client still holds back the database).
 *
 * A request without `Accept-Encoding` (most ERP connectors on a LAN, health checks, load
 * generators) is not handed to the middleware at all: wrapping the response costs it a separate
 * write of the headers and the body (a writev per response) and about 30 µs of CPU on a single
 * read (bench/results/2026-11-26-single-read-regression.md), for a response it would never compress.
 * Such a response carries no `Vary: Accept-Encoding` either: it is the same for every request
 * that asks for no encoding, and a cache keyed on the header stores it under "none".
 */
export function compressResponses(): RequestHandler {
  const compress = compression({ threshold: 1024 });
  return (req, res, next) => (req.headers['accept-encoding'] ? compress(req, res, next) : next());
}
