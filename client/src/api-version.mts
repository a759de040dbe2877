/**
 * The API version this kit was built for, sent as the `Api-Version` request header on every request
 * (the service's dated versions, `YYYY-MM-DD`). Undefined: no header is sent and the service answers
 * with its default version. The one place the version is set.
 */
export const API_VERSION: string | undefined = undefined;
