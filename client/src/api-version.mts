/**
 * The API version this kit was built for, sent as the `Api-Version` request header on every request
 * (the service's dated versions, `YYYY-MM-DD`), so its typed calls and the shapes it receives match
 * whatever the credential is pinned to. The one place the version is set; it is the newest version
 * of the contract the kit's types come from (test/unit/client-api-version.test.ts holds that).
 */
export const API_VERSION: string | undefined = '2026-12-15';
