import { compareResponses } from '../compare.mjs';

/**
 * Peer `nolimits`: the service itself, started with RATE_LIMITS=off, on the same database, so that
 * one run tells what counting rate limits in PostgreSQL costs each row (the service column counts
 * them, as a default deployment does; this one counts nothing, as behind a gateway that enforces
 * the limits). Its ratio is service / this peer: 1.0 would mean rate limits cost nothing.
 */
export const name = 'nolimits';
export const title = 'the service with RATE_LIMITS=off';
export const note = `${title}: the same build and settings as the service column, rate limits not counted (no RateLimit headers).`;
/** A measurement of a cost, not a competitor: no target. */
export const noTarget = true;

export function install(root) {
  return root;
}

export function command(root, { url, pool }) {
  const settings = { DATABASE_URL: url, NODE_ENV: 'production', JWT_SECRET: `bench-nolimits-${process.pid}`, RATE_LIMITS: 'off', DB_POOL_MAX: String(pool) };
  // The environment the runner gives every process wins over none of these (it may carry a DATABASE_URL of its own).
  const start = `Object.assign(process.env, ${JSON.stringify(settings)}); require('./dist/src/server.js');`;
  return { args: ['-e', start], cwd: root };
}

const PATHS = { items500: '/items?limit=500', items500c32: '/items?limit=500', orders100: '/orders?limit=100', job: '/jobs/J-1002', job32: '/jobs/J-1002' };

/** The peer's request for a benchmark row, or undefined when it has none. */
export function request(id) {
  return PATHS[id];
}

/** The same answer as the service's (same build, same data). */
export function check(service, peer) {
  return compareResponses(service.body, peer.body);
}
