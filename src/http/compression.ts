import compression from 'compression';
import type { RequestHandler } from 'express';

/**
 * Responses are compressed (brotli at quality 4, or gzip, as the request's `Accept-Encoding`
 * allows) when their type compresses (JSON, problem+json, the docs page, the contract) and their
 * body is at least 1 KiB: below that the headers and the CPU cost more than the bytes saved, so a
 * single read goes out as it is. A streamed bulk page is compressed as it streams (src/http/send-parts.ts
 * waits for the compressor to drain, so a slow client still holds back the database).
 */
export function compressResponses(): RequestHandler {
  return compression({ threshold: 1024 });
}
