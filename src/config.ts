import { DATA_DIR } from './paths';

/** Everything the process reads from its environment, in one place (documented in README). */
export interface Config {
  port: number;
  databaseUrl: string | undefined;
  jwtSecret: string | undefined;
  /** 'test' validates every response against the contract; 'production' skips that work. */
  mode: 'development' | 'test' | 'production';
  dataDir: string;
  smtpUrl: string | undefined;
  dbPoolMax: number;
  /** Named prepared statements per connection (DB_PREPARED_STATEMENTS=off: unnamed, for PgBouncer transaction pooling). */
  dbPreparedStatements: boolean;
  /** At most this many per connection, least recently used deallocated (DB_PREPARED_STATEMENTS_MAX). */
  dbPreparedStatementsMax: number;
  /** Requests per second per organization and per credential (RATE_LIMIT_BURST, default 20). */
  rateLimitBurst: number;
  /** Requests per hour per organization and per credential (RATE_LIMIT_HOURLY, default 3600). */
  rateLimitHourly: number;
  /** Browser origins allowed by CORS (CORS_ORIGINS, comma-separated); empty: CORS off. */
  corsOrigins: string[];
  /** Bounds on a slow client: whole request (HTTP_REQUEST_TIMEOUT_MS) and headers (HTTP_HEADERS_TIMEOUT_MS). */
  httpRequestTimeoutMs: number;
  httpHeadersTimeoutMs: number;
  /** pino level: one line per request at `info`; `silent` in test mode unless LOG_LEVEL is set. */
  logLevel: string;
  /** Bearer token for GET /metrics; unset, /metrics does not exist. */
  metricsToken: string | undefined;
  /** Hard deadline of a graceful shutdown (SIGTERM/SIGINT). */
  shutdownTimeoutMs: number;
  /** PostgreSQL statement_timeout of every connection: a runaway query becomes a 503. */
  statementTimeoutMs: number;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const mode = env.NODE_ENV === 'production' ? 'production' : env.NODE_ENV === 'test' ? 'test' : 'development';
  return {
    port: env.PORT ? Number(env.PORT) : 3000,
    databaseUrl: env.DATABASE_URL || undefined,
    jwtSecret: env.JWT_SECRET || undefined,
    mode,
    dataDir: DATA_DIR,
    smtpUrl: env.SMTP_URL || undefined,
    dbPoolMax: env.DB_POOL_MAX ? Number(env.DB_POOL_MAX) : 10,
    dbPreparedStatements: env.DB_PREPARED_STATEMENTS !== 'off',
    dbPreparedStatementsMax: env.DB_PREPARED_STATEMENTS_MAX ? Number(env.DB_PREPARED_STATEMENTS_MAX) : 200,
    rateLimitBurst: env.RATE_LIMIT_BURST ? Number(env.RATE_LIMIT_BURST) : 20,
    rateLimitHourly: env.RATE_LIMIT_HOURLY ? Number(env.RATE_LIMIT_HOURLY) : 3600,
    corsOrigins: (env.CORS_ORIGINS ?? '').split(',').map((o) => o.trim()).filter(Boolean),
    httpRequestTimeoutMs: env.HTTP_REQUEST_TIMEOUT_MS ? Number(env.HTTP_REQUEST_TIMEOUT_MS) : 30_000,
    httpHeadersTimeoutMs: env.HTTP_HEADERS_TIMEOUT_MS ? Number(env.HTTP_HEADERS_TIMEOUT_MS) : 10_000,
    logLevel: env.LOG_LEVEL || (mode === 'test' ? 'silent' : 'info'),
    metricsToken: env.METRICS_TOKEN || undefined,
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS ? Number(env.SHUTDOWN_TIMEOUT_MS) : 25_000,
    statementTimeoutMs: env.DB_STATEMENT_TIMEOUT_MS ? Number(env.DB_STATEMENT_TIMEOUT_MS) : 30_000,
  };
}
