import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { Knex } from 'knex';

/** A request as the receiver saw it, with which of its secrets verified the signature. */
export interface Received {
  id: string;
  path: string;
  body: any;
  /** The body exactly as received (what a verifier checks). */
  text: string;
  headers: http.IncomingHttpHeaders;
  /** Indexes (into `secrets`) of the secrets whose standardwebhooks `verify` accepted the request. */
  verifiedBy: number[];
  /** The status answered (undefined: no answer, e.g. held past the sender's timeout). */
  answered?: number;
  /** When the request began to arrive (Date.now()). */
  receivedAt: number;
}

/**
 * What to answer: a status (with headers), once `after` settles when given (a request in flight
 * while the test does something else), or `hold` to never answer (the sender times out).
 */
export type Reply = { status: number; headers?: Record<string, string>; after?: Promise<unknown> } | 'hold';

/**
 * A real local webhook receiver on 127.0.0.1 (port 0). Every request is checked with the
 * standardwebhooks package's own `verify` against the secrets registered for its path; `accepted`
 * is the sequence of messages it answered 2xx, the receiver's view of what was delivered.
 */
export class Receiver {
  readonly requests: Received[] = [];
  readonly secrets = new Map<string, string[]>();
  reply: (r: Received, attemptOfId: number) => Reply = () => ({ status: 204 });
  private readonly server = http.createServer((req, res) => this.handle(req, res));
  private readonly held: http.ServerResponse[] = [];

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  accepted(path?: string): Received[] {
    return this.requests.filter((r) => r.answered !== undefined && r.answered >= 200 && r.answered < 300 && (!path || r.path === path));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const receivedAt = Date.now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      const verifiedBy: number[] = [];
      (this.secrets.get(path) ?? []).forEach((secret, i) => {
        try {
          new Webhook(secret).verify(text, req.headers as Record<string, string>);
          verifiedBy.push(i);
        } catch {
          /* not signed with this secret */
        }
      });
      const r: Received = { id: String(req.headers['webhook-id']), path, body: JSON.parse(text), text, headers: req.headers, verifiedBy, receivedAt };
      const attemptOfId = this.requests.filter((x) => x.id === r.id && x.path === path).length + 1;
      this.requests.push(r);
      const reply = this.reply(r, attemptOfId);
      if (reply === 'hold') {
        this.held.push(res);
        return;
      }
      const answer = () => {
        r.answered = reply.status;
        res.writeHead(reply.status, reply.headers).end();
      };
      if (reply.after) void reply.after.then(answer, answer);
      else answer();
    });
  }

  async stop(): Promise<void> {
    for (const res of this.held) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Waits until `done()` holds, checking every 25 ms; fails with `what` after `ms`. */
export async function eventually(what: string, done: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Rests the database's enabled webhook endpoints (but `exceptOrganizationId`'s) and returns what
 * enables them again. A test worker serves every endpoint of the database: endpoints earlier files
 * left enabled (their receivers gone, entries undelivered) would take its slots with failing
 * attempts, retried without end at a test's short backoff.
 */
export async function restOtherEndpoints(db: Knex, exceptOrganizationId?: string): Promise<() => Promise<void>> {
  const { rows } = await db.raw('UPDATE webhook_endpoints SET enabled = false WHERE enabled AND organization_id IS DISTINCT FROM ? RETURNING id', [
    exceptOrganizationId ?? null,
  ]);
  const ids = rows.map((r: { id: string }) => r.id);
  return async () => {
    if (ids.length) await db.raw('UPDATE webhook_endpoints SET enabled = true WHERE id = ANY(?::uuid[])', [ids]);
  };
}
