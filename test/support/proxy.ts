import { appendFileSync } from 'node:fs';

/**
 * The suite also runs through `prism proxy generated/openapi.yaml <server> --errors`
 * (`npm run proxy-check`, which sets API_VIA_PRISM=1). Prism validates every request before
 * forwarding it: a request the contract forbids never reaches our server, Prism answers it itself
 * (422 with its own body, 401 without a Bearer credential, 404/405 outside the contract's routes
 * and methods). A test whose point is such a request (and what *our* server answers to it) can
 * only run directly; it is skipped under the proxy, with the reason written at the test. Keep
 * those tests small: the valid requests of a feature belong in tests that run through Prism.
 *
 * What Prism 5.14 checks, as measured (`proxy-check --no-skip` shows every direct-only test fails
 * through it): bodies, path and query parameters against their schemas (orderBy, direction, limit,
 * offset, required parameters), and `filter[field]` values only for listed fields whose name is
 * all lower case (it lowercases parameter names, so `filter[createdAt_gt]` is never looked at) and
 * not for `_in` lists; it ignores unknown query parameters and filter fields. Requests it does not
 * check reach our server, whose 400 then runs through Prism like any response. It cannot express
 * that the Bearer scheme name is case-insensitive (RFC 7235): it matches `^Bearer\s` exactly.
 */
export const viaPrism = process.env.API_VIA_PRISM === '1';
/** `proxy-check --no-skip` runs the direct-only tests through Prism too, to see that each still needs it. */
const noSkip = process.env.PROXY_CHECK_NO_SKIP === '1';

/** Why Prism answers a request itself instead of forwarding it (the reasons the suite uses). */
export const PRISM = {
  /** The request breaks the contract's schema (body, query or path): Prism answers 422. */
  invalidRequest: (what: string) => `sends a request the contract forbids (${what}): Prism answers 422 itself and never forwards it`,
  /** No Authorization header, or one that is not `Bearer <token>`: Prism answers 401. */
  noBearer: (what: string) => `sends ${what}: Prism's security check wants "Authorization: Bearer <token>" and answers 401 itself`,
  /** Malformed JSON: Prism's own body parser answers 400 before validating or forwarding. */
  malformedJson: 'sends malformed JSON: Prism parses the body itself and answers 400 with its own body before forwarding',
  /** A path value that is not valid percent-encoding (`/jobs/%ZZ`): the Prism process itself exits on it. */
  malformedPath: (what: string) =>
    `sends ${what}: Prism fails to decode the path and its process exits (checked with prism mock and prism proxy 5.x), so it cannot go through Prism`,
  /** A path or method that is not an operation of the contract: Prism answers 404/405. */
  outsideContract: (what: string) => `${what} is not an operation of the contract: Prism answers it itself (404/405) without forwarding`,
};

/** Records a test skipped under the proxy, for proxy-check's summary. */
function record(title: string, reason: string, tests: number): void {
  const log = process.env.PROXY_CHECK_SKIP_LOG;
  if (log) appendFileSync(log, JSON.stringify({ test: title, reason, tests }) + '\n');
}

/**
 * Skips the current test (in `it`) or the whole suite (in `before`) under the proxy, with the
 * reason. Does nothing when the suite talks to the server directly.
 */
export function onlyDirect(ctx: Mocha.Context, reason: string): void {
  if (!viaPrism || noSkip) return;
  const runnable = ctx.test as (Mocha.Runnable & { type?: string }) | undefined;
  if (runnable?.type === 'hook' && !ctx.currentTest && runnable.parent) {
    // a `before` hook: every test of the suite is skipped
    const suite = runnable.parent;
    record(`${suite.fullTitle()} (all ${suite.total()} tests)`, reason, suite.total());
  } else {
    record((ctx.currentTest ?? runnable)?.fullTitle() ?? '?', reason, 1);
  }
  ctx.skip();
}

/** `it` for a test that only runs directly (see onlyDirect); `reason` says why, precisely. */
export function itDirect(title: string, reason: string, fn: (this: Mocha.Context) => Promise<void>): Mocha.Test {
  return it(title, async function () {
    onlyDirect(this, reason);
    await fn.call(this);
  });
}
