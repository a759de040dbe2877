import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import type { AddressInfo } from 'node:net';

/**
 * A real SMTP server (the `smtp-server` package) on a free local port, recording what it receives.
 * It offers STARTTLS with the package's built-in self-signed certificate (clients in tests skip
 * certificate verification); `hideSTARTTLS` makes it a server that never offers it.
 */
export interface TestSmtp {
  port: number;
  messages: { from: string; to: string[]; raw: string; secure: boolean }[];
  auths: { username: string; password: string; secure: boolean }[];
  /** Called while a message is being received, before it is accepted (to look at the outbox mid-send). */
  onMessage?: () => Promise<void>;
  close(): Promise<void>;
}

export async function startSmtp(options: Partial<SMTPServerOptions> = {}): Promise<TestSmtp> {
  const smtp: TestSmtp = { port: 0, messages: [], auths: [], close: async () => undefined };
  const server = new SMTPServer({
    logger: false,
    authOptional: true,
    authMethods: ['PLAIN', 'LOGIN'],
    onAuth(auth, session, callback) {
      smtp.auths.push({ username: auth.username ?? '', password: auth.password ?? '', secure: session.secure });
      callback(null, { user: auth.username });
    },
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (c: Buffer) => (raw += c.toString('utf8')));
      stream.on('end', () => {
        void (smtp.onMessage?.() ?? Promise.resolve()).then(() => {
          smtp.messages.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw,
            secure: session.secure,
          });
          callback();
        });
      });
    },
    ...options,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  smtp.port = (server.server.address() as AddressInfo).port;
  smtp.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return smtp;
}
