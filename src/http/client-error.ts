import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * Requests node's HTTP parser refuses before express sees them (headers or URL over the 16 KB
 * limit, malformed HTTP, a client too slow: see timeouts.ts) are answered with the same problem
 * body as every other error, instead of node's bare status line, then the connection is closed.
 */
const ANSWERS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'The request line and headers are larger than the server accepts (16 KB).'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'The request was not received in time.'],
};

export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  // Nothing can be answered on a connection that is gone, or once a response has started.
  if (err.code === 'ECONNRESET' || !socket.writable || (socket as unknown as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent) {
    socket.destroy();
    return;
  }
  const [status, message] = ANSWERS[err.code ?? ''] ?? [400, 'The request is not valid HTTP.'];
  const slug = status === 431 ? 'request-header-fields-too-large' : status === 408 ? 'request-timeout' : 'bad-request';
  const title = STATUS_CODES[status] ?? 'Bad Request';
  const { requestId, body } = problemBody(status, slug, message);
  socket.end(
    `HTTP/1.1 ${status} ${title}\r\nContent-Type: application/problem+json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Content-Type-Options: nosniff\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * A request node parsed but the service does not take (no Host, an unknown Expect), answered
 * before express with the problem body of every other error; the connection is closed.
 */
export function answerProblem(res: ServerResponse, status: number, slug: string, message: string): void {
  const { requestId, body } = problemBody(status, slug, message);
  res.writeHead(status, {
    'Content-Type': 'application/problem+json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'X-Content-Type-Options': 'nosniff',
    'X-Request-Id': requestId,
    Connection: 'close',
  });
  res.end(body);
}

/** The problem body of every error (src/http/problem.ts), for answers written before express. */
function problemBody(status: number, slug: string, message: string): { requestId: string; body: string } {
  const requestId = randomUUID();
  const title = STATUS_CODES[status] ?? 'Bad Request';
  return { requestId, body: JSON.stringify({ type: `/problems/${slug}`, title, status, detail: message, requestId, errors: [{ message }] }) };
}
