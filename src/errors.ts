/**
 * The one family of API errors. Thrown anywhere, rendered by one middleware into one body
 * (application/problem+json with type, title, status, detail, requestId and errors[]).
 */
export interface ProblemItem {
  message: string;
  field?: string;
  rule?: string;
}

/** A rule an input breaks: the field (`code`, `defaultLocation.name`), the rule (`required`) and what is wrong (`is required`). */
export interface Violation {
  field: string;
  rule: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly slug: string,
    readonly title: string,
    readonly items: ProblemItem[],
    readonly headers: Record<string, string> = {},
    detail?: string,
  ) {
    super(detail ?? items.map((i) => i.message).join('; '));
  }

  get detail(): string {
    return this.message;
  }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function badRequest(items: ProblemItem[] | string, detail?: string): ApiError {
  const list = typeof items === 'string' ? [{ message: items }] : items;
  return new ApiError(
    400,
    'validation-failed',
    'Validation failed',
    list,
    {},
    detail ?? (list.length === 1 ? list[0].message : `The request has ${plural(list.length, 'invalid value')}.`),
  );
}

/** A single invalid field: `field: message`, naming the rule it broke. */
export function invalidField(field: string, rule: string, message: string): ApiError {
  return badRequest([{ message: `${field}: ${message}`, field, rule }]);
}

export function notFound(message: string): ApiError {
  return new ApiError(404, 'not-found', 'Not found', [{ message }]);
}

export function conflict(field: string, message: string): ApiError {
  return new ApiError(409, 'conflict', 'Conflict', [{ message: `${field}: ${message}`, field, rule: 'unique' }]);
}

export function forbidden(message: string): ApiError {
  return new ApiError(403, 'forbidden', 'Forbidden', [{ message }]);
}

export function unauthorized(message: string, tokenGiven: boolean): ApiError {
  const challenge = tokenGiven ? `Bearer error="invalid_token", error_description="${message}"` : 'Bearer';
  return new ApiError(401, 'unauthorized', 'Unauthorized', [{ message }], { 'WWW-Authenticate': challenge });
}

export function methodNotAllowed(method: string, path: string, allow: string[]): ApiError {
  return new ApiError(405, 'method-not-allowed', 'Method not allowed', [{ message: `${method} is not allowed on ${path}; allowed: ${allow.join(', ')}.` }], {
    Allow: allow.join(', '),
  });
}

export function unavailable(message = 'The database is unavailable; retry later.'): ApiError {
  return new ApiError(503, 'unavailable', 'Service unavailable', [{ message }], { 'Retry-After': '5' });
}

export function internal(): ApiError {
  return new ApiError(500, 'internal', 'Internal server error', [{ message: 'An unexpected error occurred. Quote the requestId when reporting it.' }]);
}
