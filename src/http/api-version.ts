import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DOCS_CONTENT_SECURITY_POLICY } from './docs';
import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../errors';
import { GENERATED_DIR } from '../paths';
import { contextOf } from './context';
import { isServed, NEWEST, servedVersions, successorOf, versionNamed } from '../versions/registry';
import type { VersionDefinition } from '../versions/types';
import { deprecatedUses, DeprecatedUsageRecorder } from '../versions/usage';
import { deprecatedRequests } from '../metrics';
import type { Queryable } from '../db/knex';
import type { Logger } from 'pino';
import { componentLog } from '../ops/log';

/** The guide's section on moving to a newer version: a deprecated request's `Link rel="deprecation"`. */
export const MIGRATION_GUIDE = '/docs#section/versions/moving-to-a-newer-version';

/** A request at a version the service does not (or no longer) serve: never a silent fall-forward. */
export function unsupportedVersion(given: string, from: 'header' | 'pin'): ApiError {
  const served = servedVersions().map((v) => v.version);
  const what = from === 'header' ? `Api-Version ${given}` : `the credential's pinned version ${given}`;
  return new ApiError(400, 'unsupported-api-version', 'Unsupported API version', [
    {
      message: `header.Api-Version: ${what} is not a supported version; supported versions: ${served.join(', ')} (GET /versions)`,
      field: 'header.Api-Version',
      rule: 'supported-version',
    },
  ]);
}

/** `Date.parse` of a version's day, in seconds. */
const unixOf = (day: string) => Math.floor(Date.parse(day + 'T00:00:00Z') / 1000);

/** A deprecated version's notices, the same on every answer at it: worked out once per version. */
interface Notices {
  deprecation: string;
  sunset?: string;
  /** Both links in one field value (RFC 8288 allows a list): one header line, not two, on every answer. */
  links: string;
}
const noticesOf = new Map<VersionDefinition, Notices>();
function notices(version: VersionDefinition & { deprecatedAt: string }): Notices {
  let n = noticesOf.get(version);
  if (!n) {
    const successor = successorOf(version);
    n = {
      deprecation: `@${unixOf(version.deprecatedAt)}`,
      ...(version.sunsetAt && { sunset: new Date(unixOf(version.sunsetAt) * 1000).toUTCString() }),
      links: [
        `<${MIGRATION_GUIDE}>; rel="deprecation"; type="text/html"`,
        ...(successor ? [`</openapi/${successor.version}.json>; rel="successor-version"; type="application/openapi+json"`] : []),
      ].join(', '),
    };
    noticesOf.set(version, n);
  }
  return n;
}

/** The request runs at `version`: the context says so, and the answer's headers (with a deprecated version's notices). */
function runAt(res: Response, version: VersionDefinition): void {
  contextOf(res.req).apiVersion = version.version;
  res.setHeader('Api-Version', version.version);
  if (!version.deprecatedAt) {
    if (res.hasHeader('Deprecation')) for (const h of ['Deprecation', 'Sunset']) res.removeHeader(h);
    return;
  }
  // RFC 9745 (Deprecation), RFC 8594 (Sunset), RFC 8288 links to the migration guide and the successor's contract.
  const n = notices(version as VersionDefinition & { deprecatedAt: string });
  res.setHeader('Deprecation', n.deprecation);
  if (n.sunset) res.setHeader('Sunset', n.sunset);
  // Nothing set a Link before (runAt comes first): set, not appended through express (a lookup of what is there).
  if (res.hasHeader('Link')) res.append('Link', n.links);
  else res.setHeader('Link', n.links);
}

/**
 * The version a request names with `Api-Version` (a served one, else 400), or the newest until the
 * credential's pin is known (pinnedVersion). Before everything that answers, probes included: every
 * answer says which version it is.
 */
export function requestedVersion(): (req: Request, res: Response, next: NextFunction) => void {
  const newest = versionNamed(NEWEST)!;
  return (req, res, next) => {
    // The header selects the representation (an object's shape and ETag differ by version): a
    // cache keys answers on it, beside the other headers it already varies on (appended, not set).
    res.vary('Api-Version');
    const given = req.headers['api-version'];
    if (given === undefined) return (runAt(res, newest), next());
    const version = versionNamed(given as string);
    if (!isServed(version)) return next(unsupportedVersion(String(given), 'header'));
    runAt(res, version);
    next();
  };
}

/** Without `Api-Version`, an authenticated request runs at its credential's pin (set at its first request: src/auth/credentials.ts). */
export function pinnedVersion(): (req: Request, res: Response, next: NextFunction) => void {
  return (req, res, next) => {
    const pin = contextOf(req).caller?.apiVersion;
    if (pin === undefined || req.headers['api-version'] !== undefined || pin === NEWEST) return next();
    const version = versionNamed(pin);
    if (!isServed(version)) return next(unsupportedVersion(pin, 'pin'));
    runAt(res, version);
    next();
  };
}

/**
 * `/openapi/<version>.json` and `.yaml`: each version's contract, and `/docs/<version>` an older
 * version's Redoc page, without authentication (the newest also at /openapi.json and /docs).
 */
export function versionContracts(): (req: Request, res: Response, next: NextFunction) => void {
  const file = /^\/openapi\/(\d{4}-\d{2}-\d{2})\.(json|yaml)$/;
  return (req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !(req.path.startsWith('/openapi/') || req.path.startsWith('/docs/'))) return next();
    const page = /^\/docs\/(\d{4}-\d{2}-\d{2})$/.exec(req.path)?.[1];
    if (page !== undefined) {
      const html = join(GENERATED_DIR, 'docs', `${page}.html`);
      if (page === NEWEST || !versionNamed(page) || !existsSync(html)) return next();
      return res.set('Content-Security-Policy', DOCS_CONTENT_SECURITY_POLICY).sendFile(html);
    }
    const [, version, format] = file.exec(req.path) ?? [];
    if (!version || !versionNamed(version))
      return next(new ApiError(404, 'not-found', 'Not found', [{ message: `No contract at ${req.path}: GET /versions lists them.` }]));
    const dir = version === NEWEST ? GENERATED_DIR : join(GENERATED_DIR, 'versions', version);
    if (format === 'yaml') res.type('application/yaml');
    res.sendFile(join(dir, `openapi.${format}`));
  };
}

/**
 * A request that uses something deprecated at its version (the version itself, or an operation,
 * parameter, request or reply field its contract marks deprecated): announced (Deprecation, Link), counted
 * for Prometheus by version and operation, and for the organization (GET /deprecated-usage).
 * After the body is read, before the operation.
 */
export function deprecatedUsageStep(db: Queryable, logger?: Logger): (req: Request, res: Response, next: NextFunction) => void {
  const usage = new DeprecatedUsageRecorder(db, componentLog('deprecated-usage', logger));
  return (req, res, next) => {
    const context = contextOf(req);
    const version = context.apiVersion ?? NEWEST;
    const uses = deprecatedUses(version, context.operationId, (req.query ?? {}) as Record<string, unknown>, req.headers, req.body);
    if (!uses.length) return next();
    const definition = versionNamed(version)!;
    // A deprecated version announced itself already (runAt); a deprecated operation, parameter or field since its version's release.
    if (!res.hasHeader('Deprecation')) {
      res.setHeader('Deprecation', `@${unixOf(definition.releasedAt)}`);
      res.append('Link', `<${MIGRATION_GUIDE}>; rel="deprecation"; type="text/html"`);
    }
    deprecatedRequests.inc({ version, operation: context.operationId ?? 'none' });
    const caller = context.caller;
    if (!caller || !context.operationId) return next();
    // Counted off the request's path (DeprecatedUsageRecorder): a read at a deprecated version waits for no write.
    usage.record({
      organizationId: caller.organizationId,
      credentialId: caller.credentialId,
      version,
      operationId: context.operationId,
      uses,
      requestId: context.requestId,
    });
    next();
  };
}
