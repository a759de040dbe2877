/** A request the service answered with an error status (after the kit's retries), with its problem body. */
export class ApiError extends Error {
  constructor(
    readonly what: string,
    readonly status: number,
    /** The `application/problem+json` body, when the service sent one. */
    readonly problem: unknown,
  ) {
    const detail = (problem as { detail?: unknown } | undefined)?.detail;
    super(`${what}: ${status}${typeof detail === 'string' ? ` ${detail}` : ''}`);
    this.name = 'ApiError';
  }
}

/** The data of an openapi-fetch result, or an ApiError naming the request. */
export function dataOf<T>(what: string, result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined) throw new ApiError(what, result.response.status, result.error);
  return result.data;
}
