import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { z } from 'zod';
import { DEFAULT_DATA_DIR, ROOT } from './paths';

/**
 * Everything the process reads from its environment, in one place, validated at start: a bad value
 * is one clear line naming the variable, never a stack trace from deep inside. README's
 * configuration table and .env.example list the same settings (test/config.test.ts checks both).
 */
const integer = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, `must be a whole number from ${min} to ${max}`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `must be a whole number from ${min} to ${max}`);
const onOff = z.enum(['on', 'off'], { message: 'must be on or off' }).transform((v) => v === 'on');
const commaList = z.string().transform((v) =>
  v
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean),
);
/**
 * express's `trust proxy`: `off`, the number of proxies in front (hops), or the addresses and
 * subnets of the proxies (`loopback`, `linklocal`, `uniquelocal`, `10.0.0.0/8`, `::1`...). Not
 * `true` (trust every X-Forwarded-For): any client could then choose its own address.
 */
const NAMED_RANGES = ['loopback', 'linklocal', 'uniquelocal'];
const proxyAddress = (entry: string) => {
  if (NAMED_RANGES.includes(entry)) return true;
  const [address, prefix, extra] = entry.split('/');
  const version = isIP(address);
  if (!version || extra !== undefined) return false;
  return prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128));
};
const trustProxy = z.string().transform((v, ctx): false | number | string[] => {
  const value = v.trim();
  if (value === 'off') return false;
  if (/^\d+$/.test(value) && Number(value) >= 1 && Number(value) <= 100) return Number(value);
  const entries = value
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (entries.length && entries.every(proxyAddress)) return entries;
  ctx.addIssue({ code: 'custom', message: 'must be off, a number of proxies (1-100), or addresses and subnets of the proxies (10.0.0.0/8,loopback)' });
  return z.NEVER;
});
/** A duration or count that may be fractional (WEBHOOK_RETRY_HOURS=0.5), not negative. */
const nonNegative = z
  .string()
  .refine((v) => /^\d+(\.\d+)?$/.test(v.trim()), 'must be a non-negative number')
  .transform(Number);
/** Host names (lower case) and addresses (IPv6 without brackets), comma-separated. */
const hostList = commaList.transform((hosts) => hosts.map((h) => h.toLowerCase().replace(/^\[(.*)\]$/, '$1')));
const url = (...protocols: string[]) =>
  z
    .string()
    .refine((v) => URL.canParse(v) && protocols.includes(new URL(v).protocol), `must be a URL starting with ${protocols.map((p) => p + '//').join(' or ')}`);

// Adding a setting: one line here (config key: environment variable and schema with its default),
// one row in README's configuration table, one line in .env.example.
const SETTINGS = {
  port: { env: 'PORT', schema: integer(0, 65535).default(3000) },
  databaseUrl: { env: 'DATABASE_URL', schema: url('postgres:', 'postgresql:').optional() },
  /** A direct (session) connection for LISTEN/NOTIFY and the webhook worker when DATABASE_URL is a transaction pooler. */
  databaseDirectUrl: { env: 'DATABASE_DIRECT_URL', schema: url('postgres:', 'postgresql:').optional() },
  jwtSecret: { env: 'JWT_SECRET', schema: z.string().optional() },
  mode: {
    env: 'NODE_ENV',
    schema: z.enum(['development', 'test', 'production'], { message: 'must be development, test or production' }).default('development'),
  },
  dbPoolMax: { env: 'DB_POOL_MAX', schema: integer(1, 1000).default(10) },
  smtpUrl: { env: 'SMTP_URL', schema: url('smtp:', 'smtps:').optional() },
  mailFrom: { env: 'MAIL_FROM', schema: z.string().optional() },
  dataDir: { env: 'DATA_DIR', schema: z.string().default(DEFAULT_DATA_DIR) },
  /** Named prepared statements per connection (`off`: unnamed, for PgBouncer transaction pooling). */
  dbPreparedStatements: { env: 'DB_PREPARED_STATEMENTS', schema: onOff.default(true) },
  /** At most this many per connection, least recently used deallocated. */
  dbPreparedStatementsMax: { env: 'DB_PREPARED_STATEMENTS_MAX', schema: integer(1, 100_000).default(200) },
  /** PostgreSQL statement_timeout of every connection: a runaway query becomes a 503. */
  statementTimeoutMs: { env: 'DB_STATEMENT_TIMEOUT_MS', schema: integer(0, 86_400_000).default(30_000) },
  /** Whether this instance counts requests against the rate limits (`off`: a gateway in front enforces them). */
  rateLimits: { env: 'RATE_LIMITS', schema: onOff.default(true) },
  /** Requests per second per organization (and per credential where an organization was given more). */
  rateLimitBurst: { env: 'RATE_LIMIT_BURST', schema: integer(1, 1_000_000).default(20) },
  /** Requests per hour, likewise. */
  rateLimitHourly: { env: 'RATE_LIMIT_HOURLY', schema: integer(1, 1_000_000_000).default(3600) },
  /** Which proxies' X-Forwarded-For gives the client's address (the token endpoint's guard counts per address). */
  trustProxy: { env: 'TRUST_PROXY', schema: trustProxy.default(false) },
  /** Browser origins allowed by CORS (comma-separated); empty: CORS off. */
  corsOrigins: { env: 'CORS_ORIGINS', schema: commaList.default([]) },
  /** Bounds on a slow client: the whole request, and its headers. */
  httpRequestTimeoutMs: { env: 'HTTP_REQUEST_TIMEOUT_MS', schema: integer(1, 3_600_000).default(30_000) },
  httpHeadersTimeoutMs: { env: 'HTTP_HEADERS_TIMEOUT_MS', schema: integer(1, 3_600_000).default(10_000) },
  /** pino level: one line per request at `info`; unset in test mode, `silent`. */
  logLevel: {
    env: 'LOG_LEVEL',
    schema: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { message: 'must be fatal, error, warn, info, debug, trace or silent' })
      .optional(),
  },
  /**
   * How far V8 lets the heap grow past what the last full collection kept alive, in percent
   * (src/ops/memory.ts); 0 leaves it to V8's own policy.
   */
  heapGrowthPercent: { env: 'HEAP_GROWTH_PERCENT', schema: integer(0, 1000).default(50) },
  /** Bearer token for GET /metrics; unset, /metrics does not exist. */
  metricsToken: { env: 'METRICS_TOKEN', schema: z.string().optional() },
  /** Hard deadline of a graceful shutdown (SIGTERM/SIGINT). */
  shutdownTimeoutMs: { env: 'SHUTDOWN_TIMEOUT_MS', schema: integer(0, 3_600_000).default(25_000) },
  /**
   * Whether this instance runs the background worker: webhook deliveries, the mail outbox, the
   * feed's retention and the reconciliation backfill (`off`: it still queues them; instances with
   * `on` do them). Its name until 1.1.0, WEBHOOK_WORKER, is still read (with a deprecation line).
   */
  backgroundWorker: { env: 'BACKGROUND_WORKER', formerly: 'WEBHOOK_WORKER', schema: onOff.default(true) },
  /** Days the change feed keeps its entries (src/feed/retention.ts). */
  changeFeedRetentionDays: { env: 'CHANGE_FEED_RETENTION_DAYS', schema: integer(1, 36_500).default(30) },
  // Webhooks (src/webhooks/settings.ts gathers them for the worker and the endpoint operations).
  /** Hosts that may be reached over plain http and on private addresses. */
  webhookAllowedHosts: { env: 'WEBHOOK_ALLOWED_HOSTS', schema: hostList.default([]) },
  /** One delivery attempt's limit, connection to the end of the answer. */
  webhookTimeoutMs: { env: 'WEBHOOK_TIMEOUT_MS', schema: nonNegative.default(10_000) },
  /** First retry delay; doubled per attempt, with jitter. */
  webhookRetryBaseMs: { env: 'WEBHOOK_RETRY_BASE_MS', schema: nonNegative.default(5_000) },
  /** Longest delay between two attempts (also caps a Retry-After). */
  webhookRetryMaxMs: { env: 'WEBHOOK_RETRY_MAX_MS', schema: nonNegative.default(3_600_000) },
  /** How long an entry is retried before the endpoint is marked failing and disabled. */
  webhookRetryHours: { env: 'WEBHOOK_RETRY_HOURS', schema: nonNegative.default(24) },
  /** How long the previous secret keeps signing after rotate-secret. */
  webhookSecretOverlapHours: { env: 'WEBHOOK_SECRET_OVERLAP_HOURS', schema: nonNegative.default(24) },
  /** Endpoints delivered to at the same time by one process. */
  webhookConcurrency: { env: 'WEBHOOK_CONCURRENCY', schema: integer(1, 1000).default(4) },
  /** Days the delivery log keeps its attempts. */
  webhookDeliveryRetentionDays: { env: 'WEBHOOK_DELIVERY_RETENTION_DAYS', schema: nonNegative.default(30) },
} satisfies Record<string, { env: string; formerly?: string; schema: z.ZodType }>;

type Settings = typeof SETTINGS;
type Parsed = { [K in keyof Settings]: z.output<Settings[K]['schema']> };
export type Config = Omit<Parsed, 'logLevel'> & {
  logLevel: string;
  /** One line per setting given by its former name, for the log at start. */
  deprecations: string[];
};

/** The environment variables the service reads (for .env.example and the README table). */
export const SETTING_NAMES: string[] = Object.values(SETTINGS).map((s) => s.env);

/** Bad configuration: one line per problem, naming the variable, the value and what it must be. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const config: Record<string, unknown> = {};
  const problems: string[] = [];
  const deprecations: string[] = [];
  for (const [key, setting] of Object.entries(SETTINGS)) {
    const { schema } = setting;
    const formerly = 'formerly' in setting ? setting.formerly : undefined;
    // A setting given only by its former name is read from it, and said so.
    const name = formerly && (env[setting.env] ?? '') === '' && (env[formerly] ?? '') !== '' ? formerly : setting.env;
    if (name !== setting.env) deprecations.push(`${formerly} is deprecated: set ${setting.env} instead (it is read as ${setting.env} for now)`);
    // An empty variable (`PORT=` in .env) means unset, as it always has.
    const raw = env[name] === '' ? undefined : env[name];
    const parsed = (schema as z.ZodType).safeParse(raw);
    if (parsed.success) config[key] = parsed.data;
    else problems.push(`${name}=${raw}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  }
  if (problems.length) throw new ConfigError(problems);
  const parsed = config as Parsed;
  return { ...parsed, logLevel: parsed.logLevel ?? (parsed.mode === 'test' ? 'silent' : 'info'), deprecations };
}

/**
 * Reads `.env` in the project folder when there is one (the same format as node --env-file).
 * Variables already set in the environment win over the file.
 */
export function loadDotEnv(file = join(ROOT, '.env')): void {
  if (existsSync(file)) process.loadEnvFile(file);
}
