import type { Handlers } from '../../http/handler';
import { servedVersions, statusOf, successorOf } from '../../versions/registry';

/** GET /versions: the served versions, newest first (api/versions/index.ts). */
export const versionHandlers: Handlers<'listVersions'> = {
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
