import type { Handlers } from '../../http/handler';
import { servedVersions, statusOf, successorOf } from '../../versions/registry';
import { deprecatedUsage } from '../../versions/usage';

/** GET /versions: the served versions, newest first (api/versions/index.ts); GET /deprecated-usage. */
export const versionHandlers: Handlers<'listVersions' | 'listDeprecatedUsage'> = {
  listDeprecatedUsage: async ({ db, caller }) => ({ status: 200, body: await deprecatedUsage(db, caller.organizationId) }),
  listVersions: async () => ({
    status: 200,
    body: servedVersions().map((v) => ({
      version: v.version,
      status: statusOf(v),
      successor: successorOf(v)?.version ?? null,
      deprecatedAt: v.deprecatedAt ?? null,
      sunsetAt: v.sunsetAt ?? null,
      contract: `/openapi/${v.version}.json`,
    })),
  }),
};
