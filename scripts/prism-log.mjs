import { contractOperations as operationsOf, templateMatcher } from '../dist/src/http/contract.js';

// Reading the log of `prism proxy --errors` (scripts/proxy-check.mjs; tested in
// test/proxy-check.test.ts): one line per event, the request's method and path on the lines of
// Prism's HTTP server, the upstream status on the proxy's lines.

/** The path proxy-check polls until Prism answers (not an operation: its lines are ignored). */
export const READINESS_PATH = '/openapi-proxy-readiness';
// eslint-disable-next-line no-control-regex
export const stripAnsi = (s) => s.replace(/\u001b\[[0-9;]*m/g, '');

/** The contract's operations as matchers (src/http/contract.ts reads the path templates). */
export function contractOperations(doc) {
  const ops = operationsOf(doc).map(({ method, path, operationId }) => ({ method: method.toLowerCase(), path, operationId, ...templateMatcher(path) }));
  // Prefer the most literal template (as OpenAPI routing does): /jobs/batch before /jobs/{jobIdOrCode}.
  ops.sort((a, b) => b.literal - a.literal);
  return ops;
}

/**
 * Reads Prism's log. Every request it does not pass through cleanly is a violation: a request it
 * rejects itself (422 invalid request, 401 security, 415, no path or method matched), a response
 * it replaces with its VIOLATIONS error, and every `Violation:` line (warnings included).
 * `seen` maps each operationId to the statuses the upstream answered it with.
 */
export function readPrismLog(prismLog, doc) {
  const ops = contractOperations(doc);
  const seen = new Map(ops.map((o) => [o.operationId, new Set()]));
  const violations = [];
  const pending = []; // requests received, waiting for their upstream status (matched by path)
  let requests = 0;
  let last;
  for (const raw of stripAnsi(prismLog).split('\n')) {
    const line = raw.replace(/^\[[^\]]*\] › /, '');
    // "[HTTP SERVER] get /items ℹ  info      Request received"
    const received = /^\[HTTP SERVER\] (\w+) (\S+) .*Request received$/.exec(line);
    if (received) {
      if (received[2] === READINESS_PATH) continue;
      requests += 1;
      const method = received[1].toLowerCase();
      const path = received[2];
      const op = ops.find((o) => o.method === method && o.pattern.test(path));
      last = { what: `${method.toUpperCase()} ${path}`, path, operationId: op?.operationId };
      pending.push(last);
      continue;
    }
    // "[PROXY] ℹ  info      The upstream call to /items has returned 200"
    const returned = /The upstream call to (\S+) has returned (\d{3})$/.exec(line);
    if (returned) {
      const i = pending.findIndex((p) => p.path === returned[1]);
      const req = i >= 0 ? pending.splice(i, 1)[0] : undefined;
      if (req?.operationId) seen.get(req.operationId).add(Number(returned[2]));
      continue;
    }
    // "[HTTP SERVER] post /x ✖  error     Request terminated with error: https://stoplight.io/prism/errors#UNPROCESSABLE_ENTITY: Invalid request"
    const terminated = /^\[HTTP SERVER\] (\w+) (\S+) .*Request terminated with error: (.*)$/.exec(line);
    if (terminated) {
      if (terminated[2] === READINESS_PATH) continue;
      const i = pending.findIndex((p) => p.path === terminated[2]);
      if (i >= 0) pending.splice(i, 1);
      violations.push(`${terminated[1].toUpperCase()} ${terminated[2]}: ${terminated[3].replace('https://stoplight.io/prism/errors#', '')}`);
      continue;
    }
    const violation = /(?:✖|⚠|ℹ)\s+(\w+)\s+(Violation: .*)$/.exec(line);
    if (violation) violations.push(`${last?.what ?? '(no request)'}: ${violation[1]} ${violation[2]}`);
  }
  return { ops, seen, violations, requests, unfinished: pending.length };
}
