import { readdirSync } from 'node:fs';
import type { NextFunction, Request, Response } from 'express';
import { MIGRATIONS_DIR, type Db } from '../../db/knex';
import { badRequest, unavailable } from '../../errors';
import { sendProblem } from '../../http/problem';
import { recordCoverage } from '../../http/coverage';
import { contextOf } from '../../http/context';
import { Lifecycle } from '../../ops/lifecycle';
import type { Handlers } from '../../http/handler';
import { watchPool, workingSessions, type PoolWatch } from '../../db/pool-health';

/** A readiness probe must answer quickly even when the database hangs rather than refuses. */
const READY_TIMEOUT_MS = 2000;

/**
 * Why the process cannot recover by itself, or undefined: its pool has had every connection in use,
 * none handed out or given back, for longer than the acquire timeout (every request needing the
 * database is refused), while a fresh connection to the database succeeds and at least one of the
 * connections in use is not working on the database (no statement running, and none for longer
 * than the acquire timeout: the pool lost track of it). Connections all running statements, or
 * waiting on locks another session holds, are a wait, not a wedge: the process recovers when they
 * end (statement_timeout bounds them). A database that is down is not such a reason either: the
 * process recovers when it is back, and a restart would not help.
 */
export async function wedgedReason(db: Db, pool: PoolWatch): Promise<string | undefined> {
  const stuck = pool.stuckForMs();
  if (stuck <= pool.acquireTimeoutMs) return undefined;
  const inUse = pool.inUse();
  const working = await workingSessions(db, inUse, pool.acquireTimeoutMs, READY_TIMEOUT_MS);
  if (!working) return undefined;
  const lost = inUse.filter((pid) => !working.has(pid)).length;
  if (lost === 0) return undefined;
  return `No database connection could be obtained for ${Math.round(stuck / 1000)} s while the database answers, and ${lost} of the ${inUse.length} connections in use run no statement: the connection pool is stuck.`;
}

/** Migrations this build knows (knex records each by file name), read once. */
function knownMigrations(): string[] {
  return readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.js'));
}

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** Why the instance is not ready, or undefined when it is. One query: reachable and migrated. */
export async function notReadyReason(db: Db, lifecycle: Lifecycle, migrations: string[]): Promise<string | undefined> {
  if (lifecycle.shuttingDown) return 'The instance is shutting down.';
  let applied: number;
  try {
    const { rows } = await withTimeout(
      db.raw<{ rows: { n: number }[] }>('SELECT count(*)::int AS n FROM knex_migrations WHERE name = ANY(?)', [migrations]),
      READY_TIMEOUT_MS,
      'The database',
    );
    applied = rows[0].n;
  } catch (err) {
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
    return `The database is unreachable: ${reason.replace(/\.$/, '')}.`;
  }
  if (applied < migrations.length) return `Migrations are pending: ${applied} of ${migrations.length} applied.`;
  return undefined;
}

/**
 * GET /healthz and GET /readyz (api/paths/healthz.yaml, readyz.yaml), answered before
 * authentication and body parsing: probes carry no credentials and must stay cheap.
 */
export function healthRoutes(db: Db, lifecycle: Lifecycle, recordForTests: boolean) {
  const migrations = knownMigrations();
  const pool = watchPool(db);
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const operationId = req.path === '/healthz' ? 'getHealth' : req.path === '/readyz' ? 'getReadiness' : undefined;
    if (!operationId) return next();
    contextOf(req).operationId = operationId;
    const record = (status: number) => recordForTests && recordCoverage(operationId, status);
    const extra = Object.keys(req.query ?? {});
    if (extra.length) {
      record(400);
      return sendProblem(
        badRequest(extra.map((k) => ({ message: `unknown query parameter ${k}`, field: `query.${k}`, rule: 'additionalProperties' }))),
        req,
        res,
      );
    }
    if (operationId === 'getHealth') {
      const reason = await wedgedReason(db, pool);
      if (reason) {
        record(503);
        return sendProblem(unavailable(reason), req, res);
      }
    }
    if (operationId === 'getReadiness') {
      const reason = await notReadyReason(db, lifecycle, migrations);
      if (reason) {
        record(503);
        return sendProblem(unavailable(reason), req, res);
      }
    }
    record(200);
    res.setHeader('Cache-Control', 'no-store');
    // Sent as is, not through res.json: Express answers a GET carrying `If-None-Match: *` 304 (any
    // representation "matches"), which a probe cannot use and the contract does not list.
    const body = JSON.stringify({ status: operationId === 'getHealth' ? 'ok' : 'ready' });
    res.status(200).setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(req.method === 'HEAD' ? undefined : body);
  };
}

/**
 * The same probes as handlers of the contract's operations (every operationId needs one). The app
 * answers both in healthRoutes before authentication; these serve a dispatch that reaches them.
 */
export const healthHandlers: Handlers<'getHealth' | 'getReadiness'> = {
  getHealth: async () => ({ status: 200, body: { status: 'ok' } }),
  getReadiness: async ({ db, req }) => {
    const lifecycle: Lifecycle = req.app.locals.lifecycle ?? new Lifecycle();
    const reason = await notReadyReason(db, lifecycle, knownMigrations());
    if (reason) throw unavailable(reason);
    return { status: 200, body: { status: 'ready' } };
  },
};
