import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The process's Prometheus registry, served on GET /metrics (src/http/metrics-route.ts). Other
 * parts of the service register into it through the named exports below rather than creating
 * registries of their own, so one scrape sees everything.
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

/** One per answered request; `operationId` is the contract's, or a fixed label outside it. */
export const httpRequestsTotal = new Counter({
  name: 'http_requests_total',
  help: 'HTTP requests answered, by contract operation, method and status.',
  labelNames: ['operationId', 'method', 'status'] as const,
  registers: [registry],
});

export const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'Time from receiving a request to finishing its response, by contract operation, method and status.',
  labelNames: ['operationId', 'method', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

/**
 * One per request refused with 429 by a rate limit, labelled with the policy that refused it (the
 * names of the RateLimit-Policy header: org-burst, org-hourly, credential-burst, credential-hourly,
 * token-failures; where several did, the one with the longest wait). A fixed set: no ids.
 */
/** Requests that used something deprecated (a deprecated API version, operation, parameter or field), by API version and operationId. */
export const deprecatedRequests = new Counter({
  name: 'api_deprecated_requests_total',
  help: 'Requests that used a deprecated API version, operation, parameter or field, by API version and operation.',
  labelNames: ['version', 'operation'] as const,
  registers: [registry],
});

export const rateLimitRejections = new Counter({
  name: 'rate_limit_rejections_total',
  help: 'Requests refused by a rate limit (429), by rate-limit policy.',
  labelNames: ['limit'] as const,
  registers: [registry],
});

/** Unsent registration and other e-mails in outbox_emails (set at scrape time, see mail/mailer.ts). */
export const outboxBacklog = new Gauge({
  name: 'outbox_emails_pending',
  help: 'E-mails in the outbox not yet sent and still to be tried.',
  registers: [registry],
});

/** Webhook deliveries waiting to be made (the delivery worker sets it or gives it a collect()). */
export const webhookDeliveryBacklog = new Gauge({
  name: 'webhook_deliveries_pending',
  help: 'Webhook deliveries waiting to be attempted.',
  registers: [registry],
});

/**
 * Sets `gauge` from `read()` at every scrape (a backlog is a count in the database; asking at
 * scrape time costs one query per scrape, not one per change). A failing read leaves the last value.
 */
export function measureAtScrape(gauge: Gauge, read: () => Promise<number>): void {
  (gauge as unknown as { collect?: () => Promise<void> }).collect = async () => {
    try {
      gauge.set(await read());
    } catch {
      /* the database is unavailable: /readyz reports that; keep the last value */
    }
  };
}

/** Any tarn-compatible pool: knex's `client.pool` exposes these public getters. */
export interface PoolStats {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

let poolSource: (() => PoolStats | undefined) | undefined;
const poolGauge = (name: string, help: string, read: (p: PoolStats) => number) =>
  new Gauge({
    name,
    help,
    registers: [registry],
    collect() {
      const p = poolSource?.();
      this.set(p ? read(p) : 0);
    },
  });
poolGauge('db_pool_connections_in_use', 'Database connections checked out of the pool.', (p) => p.numUsed());
poolGauge('db_pool_connections_idle', 'Open database connections waiting in the pool.', (p) => p.numFree());
poolGauge('db_pool_acquires_waiting', 'Requests waiting for a database connection.', (p) => p.numPendingAcquires());

/** The pool the db_pool_* gauges report (the process's one pool; the last app created wins). */
export function registerPoolMetrics(pool: () => PoolStats | undefined): void {
  poolSource = pool;
}
