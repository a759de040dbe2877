import { connect as netConnect, Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * A minimal SMTP client (RFC 5321) on node:net/node:tls: EHLO, STARTTLS when offered, AUTH PLAIN,
 * one message per connection. Enough for a relay such as a provider's submission port.
 */
export interface SmtpTarget {
  /** smtps: TLS from the first byte (port 465 by default). */
  secure: boolean;
  host: string;
  port: number;
  user?: string;
  pass?: string;
  from: string;
}

export interface MailMessage {
  from: string;
  to: string;
  subject: string;
  body: string;
}

const DEFAULT_FROM = 'Procurement <no-reply@procurement.dev>';

/** `smtp://user:pass@host:587?from=no-reply@example.com` or `smtps://...` (465). */
export function parseSmtpUrl(url: string): SmtpTarget {
  const u = new URL(url);
  if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:') throw new Error(`SMTP_URL must start with smtp:// or smtps://, not ${u.protocol}`);
  const secure = u.protocol === 'smtps:';
  return {
    secure,
    host: u.hostname,
    port: u.port ? Number(u.port) : secure ? 465 : 587,
    user: u.username ? decodeURIComponent(u.username) : undefined,
    pass: u.password ? decodeURIComponent(u.password) : undefined,
    from: u.searchParams.get('from') ?? process.env.MAIL_FROM ?? DEFAULT_FROM,
  };
}

interface Reply {
  code: number;
  text: string;
}

/** Reads SMTP replies (multi-line `250-...` ... `250 ...`) from a socket that may be upgraded to TLS. */
class Connection {
  private buffer = '';
  private lines: string[] = [];
  private replies: Reply[] = [];
  private waiter?: { resolve: (r: Reply) => void; reject: (e: Error) => void };
  private failure?: Error;

  constructor(
    public socket: Socket,
    private readonly timeoutMs: number,
  ) {
    this.attach(socket);
  }

  attach(socket: Socket): void {
    this.socket = socket;
    socket.setTimeout(this.timeoutMs, () => socket.destroy(new Error(`SMTP server did not answer within ${this.timeoutMs} ms`)));
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (err) => this.fail(err));
    socket.on('close', () => this.fail(new Error('SMTP connection closed')));
  }

  private onData(chunk: Buffer): void {
    this.buffer += chunk.toString('utf8');
    let i: number;
    while ((i = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, i).replace(/\r$/, '');
      this.buffer = this.buffer.slice(i + 1);
      this.lines.push(line);
      if (/^\d{3}-/.test(line)) continue;
      const reply = { code: Number(line.slice(0, 3)), text: this.lines.map((l) => l.slice(4)).join('\n') };
      this.lines = [];
      if (this.waiter) {
        const w = this.waiter;
        this.waiter = undefined;
        w.resolve(reply);
      } else this.replies.push(reply);
    }
  }

  private fail(err: Error): void {
    this.failure ??= err;
    const w = this.waiter;
    this.waiter = undefined;
    w?.reject(err);
  }

  /** Stops listening to the plain socket before it is wrapped in TLS. */
  detach(): void {
    this.socket.removeAllListeners('data');
    this.socket.removeAllListeners('error');
    this.socket.removeAllListeners('close');
    this.socket.setTimeout(0);
  }

  read(): Promise<Reply> {
    const next = this.replies.shift();
    if (next) return Promise.resolve(next);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
  }

  async command(line: string | undefined, expect: number[]): Promise<Reply> {
    if (line !== undefined) this.socket.write(line + '\r\n');
    const reply = await this.read();
    if (!expect.includes(reply.code)) {
      const shown = line?.startsWith('AUTH') ? 'AUTH' : (line ?? 'greeting');
      throw new Error(`SMTP ${shown.split(' ')[0]}: ${reply.code} ${reply.text}`);
    }
    return reply;
  }
}

function open(target: SmtpTarget): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = target.secure
      ? tlsConnect({ host: target.host, port: target.port, servername: target.host }, () => resolve(socket))
      : netConnect({ host: target.host, port: target.port }, () => resolve(socket));
    socket.once('error', reject);
  });
}

const encodeHeader = (s: string) => (/^[\x20-\x7e]*$/.test(s) ? s : `=?UTF-8?B?${Buffer.from(s, 'utf8').toString('base64')}?=`);
const address = (s: string) => /<([^>]+)>/.exec(s)?.[1] ?? s.trim();

export function formatMessage(msg: MailMessage): string {
  const domain = address(msg.from).split('@')[1] ?? 'localhost';
  const headers = [
    `From: ${msg.from}`,
    `To: ${msg.to}`,
    `Subject: ${encodeHeader(msg.subject)}`,
    `Date: ${new Date().toUTCString().replace('GMT', '+0000')}`,
    `Message-ID: <${randomUUID()}@${domain}>`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
  ];
  const body = msg.body
    .replace(/\r?\n/g, '\r\n')
    .split('\r\n')
    // Dot-stuffing: a line starting with "." would otherwise end or change the DATA section.
    .map((l) => (l.startsWith('.') ? '.' + l : l))
    .join('\r\n');
  return headers.join('\r\n') + '\r\n\r\n' + body;
}

/** Sends one message; rejects with the server's reply or the connection error. */
export async function sendMail(target: SmtpTarget, msg: MailMessage, timeoutMs = 15000): Promise<void> {
  const socket = await open(target);
  const conn = new Connection(socket, timeoutMs);
  try {
    const me = hostname() || 'localhost';
    await conn.command(undefined, [220]);
    let ehlo = await conn.command(`EHLO ${me}`, [250]);
    if (!target.secure && /^STARTTLS$/im.test(ehlo.text)) {
      await conn.command('STARTTLS', [220]);
      conn.detach();
      const secured = await new Promise<Socket>((resolve, reject) => {
        const s = tlsConnect({ socket: conn.socket, servername: target.host }, () => resolve(s));
        s.once('error', reject);
      });
      conn.attach(secured);
      ehlo = await conn.command(`EHLO ${me}`, [250]);
    }
    if (target.user !== undefined) {
      const token = Buffer.from(`\0${target.user}\0${target.pass ?? ''}`, 'utf8').toString('base64');
      await conn.command(`AUTH PLAIN ${token}`, [235]);
    }
    await conn.command(`MAIL FROM:<${address(msg.from)}>`, [250]);
    await conn.command(`RCPT TO:<${address(msg.to)}>`, [250, 251]);
    await conn.command('DATA', [354]);
    await conn.command(formatMessage(msg) + '\r\n.', [250]);
    await conn.command('QUIT', [221]).catch(() => undefined);
  } finally {
    conn.detach();
    conn.socket.destroy();
  }
}
