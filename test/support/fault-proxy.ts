import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the proxy saw it. */
export interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  /** When it arrived (Date.now()). */
  at: number;
}

/**
 * What the proxy does with the nth request (1-based): forward it and pass the answer on (undefined),
 * forward it and then drop the connection instead of answering (`drop-answer`: the service did the
 * work, the client never hears of it), or answer a status itself without forwarding.
 */
export type Fault = undefined | 'drop-answer' | { status: number; headers?: Record<string, string> };

/**
 * A local HTTP proxy on 127.0.0.1 in front of the real service, injecting faults between a client
 * and it (a lost answer, a gateway error); it never answers for the service otherwise.
 */
export class FaultProxy {
  readonly seen: Seen[] = [];
  fault: (request: Seen, n: number) => Fault = () => undefined;
  private readonly server = http.createServer((req, res) => void this.handle(req, res));

  constructor(private readonly target: string) {}

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const seen: Seen = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, at: Date.now() };
    this.seen.push(seen);
    const fault = this.fault(seen, this.seen.length);
    if (fault && fault !== 'drop-answer') {
      res.writeHead(fault.status, fault.headers).end();
      return;
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined && !['host', 'connection', 'content-length'].includes(name)) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    const answer = await fetch(this.target + seen.url, { method: seen.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
    const body = Buffer.from(await answer.arrayBuffer());
    if (fault === 'drop-answer') {
      req.socket.destroy();
      return;
    }
    const out: Record<string, string> = {};
    // fetch has decoded the body: its encoding and length headers no longer apply.
    answer.headers.forEach((value, name) => {
      if (!['content-encoding', 'content-length', 'transfer-encoding', 'connection'].includes(name)) out[name] = value;
    });
    res.writeHead(answer.status, out).end(body);
  }
}
