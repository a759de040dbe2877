import pino, { type Logger, type DestinationStream } from 'pino';

/**
 * Structured JSON logs (pino): one line per request at `info`, with the request id every response
 * carries (X-Request-Id, src/http/request-id.ts), the caller's organization, the contract's
 * operationId, the status and the duration. Request headers and bodies are not logged; anything
 * secret that reaches a log object anyway (an error carrying a header, a form) is redacted.
 */
const SECRET_KEYS = [
  'authorization',
  'cookie',
  'password',
  'secret',
  'client_secret',
  'clientSecret',
  'access_token',
  'accessToken',
  'apiKey',
  'api_key',
  'token',
  'key',
];
// At the top of a log object and one level down (pino's paths take no deeper wildcards cheaply).
const REDACT = ['req.headers.authorization', 'req.headers.cookie', ...SECRET_KEYS, ...SECRET_KEYS.map((k) => `*.${k}`)];

/** Log lines are written to stdout in writes of at least this many bytes... */
export const LOG_BUFFER_BYTES = 4096;
/** ...or after at most this long, whichever comes first. */
export const LOG_FLUSH_MS = 1000;

/**
 * The service's logger: JSON lines on stdout (or `destination`, in tests).
 *
 * stdout is written asynchronously in writes of LOG_BUFFER_BYTES or every LOG_FLUSH_MS (pino's
 * own buffered destination, sonic-boom), not one write per line: a write is a system call, and one
 * per request was a large share of a cheap read's cost. pino writes what is buffered when the
 * process exits (shutdown, a fatal error); a process killed outright (SIGKILL, out of memory)
 * loses at most the last second of lines.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const stream = destination ?? bufferedStdout();
  return pino({ level, redact: { paths: REDACT, censor: '[redacted]' }, base: { service: 'procurement-api' } }, stream);
}

const bufferedStdout = (): DestinationStream => pino.destination({ dest: 1, sync: false, minLength: LOG_BUFFER_BYTES, periodicFlush: LOG_FLUSH_MS });

/** How a background part of the service (webhook worker, mailer, change feed retention) reports trouble. */
export interface ComponentLog {
  error(message: string, err?: unknown): void;
  warn(message: string): void;
}

/**
 * A background part's log: lines of the service's logger (JSON, with `component` and, for an
 * error, `err`), so an operator finds them where the request lines are; without a logger (a part
 * started on its own, in a test), lines on stderr prefixed with the component.
 */
export function componentLog(component: string, logger?: Logger): ComponentLog {
  if (!logger) {
    const line = (message: string, err?: unknown) =>
      console.error(`${component}: ${message}${err === undefined ? '' : `: ${err instanceof Error ? err.message : String(err)}`}`);
    return { error: line, warn: (message) => line(message) };
  }
  const log = logger.child({ component });
  return {
    error: (message, err) => (err === undefined ? log.error(message) : log.error({ err }, message)),
    warn: (message) => log.warn(message),
  };
}

/**
 * knex's own messages (its `log` option: pool acquire failures, disposed connections, deprecations)
 * as lines of the service's JSON log, component `database`: knex otherwise prints them as plain
 * text with stack traces, thousands of lines during connection trouble. The message's first line
 * is the line's `msg`; a stack trace is kept in `detail`, inside the JSON line.
 */
export function knexLog(logger: Logger) {
  const log = logger.child({ component: 'database' });
  const line = (level: 'warn' | 'error' | 'debug') => (message: unknown) => {
    const text = message instanceof Error ? (message.stack ?? message.message) : typeof message === 'string' ? message : JSON.stringify(message);
    const [first, ...rest] = String(text).split('\n');
    if (rest.length) log[level]({ detail: rest.join('\n').trim() }, first);
    else log[level](first);
  };
  return {
    warn: line('warn'),
    error: line('error'),
    debug: line('debug'),
    deprecate: (method: string, alternative: string) => log.warn(`${method} is deprecated, use ${alternative}`),
  };
}
