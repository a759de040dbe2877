import nodemailer, { type Transporter } from 'nodemailer';
import type { ConnectionOptions } from 'node:tls';
import { isIP } from 'node:net';

/**
 * Outgoing mail through nodemailer's SMTP transport (MIME, encodings, line lengths, STARTTLS and
 * authentication are its business). Whenever credentials are configured, STARTTLS is required
 * (`requireTLS`): a password never crosses the network in clear, even if a server or a
 * man-in-the-middle stops offering STARTTLS.
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
export function parseSmtpUrl(url: string, defaultFrom = DEFAULT_FROM): SmtpTarget {
  const u = new URL(url);
  if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:') throw new Error(`SMTP_URL must start with smtp:// or smtps://, not ${u.protocol}`);
  const secure = u.protocol === 'smtps:';
  return {
    secure,
    host: u.hostname,
    port: u.port ? Number(u.port) : secure ? 465 : 587,
    user: u.username ? decodeURIComponent(u.username) : undefined,
    pass: u.password ? decodeURIComponent(u.password) : undefined,
    from: u.searchParams.get('from') ?? defaultFrom,
  };
}

/**
 * One transport per delivery run (a pooled connection for its messages). `tls` adds TLS options,
 * such as a test's own certificate authority.
 */
export function smtpTransport(target: SmtpTarget, timeoutMs = 15000, tls?: ConnectionOptions): Transporter {
  return nodemailer.createTransport({
    host: target.host,
    port: target.port,
    secure: target.secure,
    requireTLS: target.user !== undefined && !target.secure,
    auth: target.user !== undefined ? { user: target.user, pass: target.pass ?? '' } : undefined,
    pool: true,
    maxConnections: 1,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    // SNI takes a host name only (RFC 6066).
    tls: { ...(isIP(target.host) ? {} : { servername: target.host }), ...tls },
  });
}

export async function sendMail(transport: Transporter, msg: MailMessage): Promise<void> {
  await transport.sendMail({ from: msg.from, to: msg.to, subject: msg.subject, text: msg.body });
}
