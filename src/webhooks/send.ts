import http from 'node:http';
import https from 'node:https';
import { guardedLookup, isAllowedHost, urlProblem } from './ssrf';

/** What one attempt came to. */
export interface SendResult {
  outcome: 'succeeded' | 'retry' | 'failed';
  status: number | null;
  durationMs: number;
  error: string | null;
  /** From the receiver's Retry-After (429, 503), in milliseconds. */
  retryAfterMs?: number;
}

const RESPONSE_LIMIT = 64 * 1024;

/** Retry-After as seconds or an HTTP date (RFC 9110 10.2.3); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * Sends webhook requests. One per worker: its keep-alive agents only hold sockets opened through
 * the guarded lookup (for hosts not in WEBHOOK_ALLOWED_HOSTS), so a reused socket was checked too.
 */
export class Sender {
  private readonly agents = {
    http: new http.Agent({ keepAlive: true, maxSockets: 8 }),
    https: new https.Agent({ keepAlive: true, maxSockets: 8 }),
  };

  constructor(
    private readonly allowedHosts: string[],
    private readonly timeoutMs: number,
  ) {}

  /**
   * Sockets to hosts allowed only for the sending organization (a development organization's
   * loopback receivers): kept apart, so that no other organization's request reuses one of them
   * past the guarded lookup.
   */
  private readonly ownAgents = {
    http: new http.Agent({ keepAlive: true, maxSockets: 8 }),
    https: new https.Agent({ keepAlive: true, maxSockets: 8 }),
  };

  /** `allowedHosts`: the sending organization's (settings.ts allowedHostsOf); WEBHOOK_ALLOWED_HOSTS by default. */
  send(target: string, headers: Record<string, string>, body: string, allowedHosts: string[] = this.allowedHosts): Promise<SendResult> {
    const started = process.hrtime.bigint();
    const elapsed = () => Math.round(Number(process.hrtime.bigint() - started) / 1e6);
    const refused = urlProblem(target, allowedHosts);
    // A refused target is retried like a network error: the setting or the URL may be fixed.
    if (refused) return Promise.resolve({ outcome: 'retry', status: null, durationMs: 0, error: `The URL ${refused}.` });
    const url = new URL(target);
    const secure = url.protocol === 'https:';
    const request = secure ? https.request : http.request;
    return new Promise<SendResult>((resolve) => {
      let settled = false;
      const done = (r: Omit<SendResult, 'durationMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ...r, durationMs: elapsed() });
      };
      const req = request(
        url,
        {
          method: 'POST',
          agent: (isAllowedHost(url, allowedHosts) && !isAllowedHost(url, this.allowedHosts) ? this.ownAgents : this.agents)[secure ? 'https' : 'http'],
          lookup: isAllowedHost(url, allowedHosts) ? undefined : guardedLookup,
          headers: {
            ...headers,
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(body)),
            'user-agent': 'procurement-api-webhooks/1',
          },
        },
        (res) => {
          let read = 0;
          // The answer's body is not used; it is read (up to a limit) so the socket can be reused.
          res.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read > RESPONSE_LIMIT) res.destroy();
          });
          const finish = () => {
            const status = res.statusCode ?? 0;
            if (status >= 200 && status < 300) return done({ outcome: 'succeeded', status, error: null });
            const retryAfterMs = parseRetryAfter(res.headers['retry-after'] as string | undefined);
            if (status === 429 || status >= 500) return done({ outcome: 'retry', status, error: `The receiver answered ${status}.`, retryAfterMs });
            const why = status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
            done({ outcome: 'failed', status, error: `The receiver answered ${status}${why}.` });
          };
          res.on('end', finish);
          res.on('close', finish);
          res.on('error', finish);
        },
      );
      const timer = setTimeout(() => {
        req.destroy();
        done({ outcome: 'retry', status: null, error: `No answer within ${this.timeoutMs} ms.` });
      }, this.timeoutMs);
      req.on('error', (err: NodeJS.ErrnoException) => done({ outcome: 'retry', status: null, error: `${err.code ? err.code + ': ' : ''}${err.message}` }));
      req.end(body);
    });
  }

  close(): void {
    for (const agent of [this.agents.http, this.agents.https, this.ownAgents.http, this.ownAgents.https]) agent.destroy();
  }
}
