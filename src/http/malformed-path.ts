import type { Operation } from 'openapi-backend';
import { badRequest, type ApiError } from '../errors';

/**
 * The parameters of `operation` whose values in `path` are not valid percent-encoding (RFC 3986
 * 2.1, `/jobs/%ZZ`), with their raw values. openapi-backend decodes the path's values when it
 * parses a request (bath, decodeURIComponent) and lets the bare URIError through; the error is the
 * client's, and this names what was wrong. Only on that error: none when every value decodes.
 */
export function malformedPathParameters(operation: Operation, path: string): { name: string; value: string }[] {
  const names = [...operation.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
  const literals = operation.path.split(/\{[^}]+\}/).map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  // The service ignores one trailing slash (ignoreTrailingSlashes), as the router did when it matched.
  const values = new RegExp(`^${literals.join('([^/]*)')}/?$`).exec(path);
  if (!values) return [];
  return names.flatMap((name, i) => {
    const value = values[i + 1];
    try {
      decodeURIComponent(value);
      return [];
    } catch {
      return [{ name, value }];
    }
  });
}

/**
 * openapi-backend's URIError for a request to `operation` as our 400, each malformed path value
 * named (field `path.<name>`, rule `encoding`); undefined when no value of the path is at fault.
 */
export function malformedPathError(operation: Operation | undefined, path: string): ApiError | undefined {
  const parameters = operation ? malformedPathParameters(operation, path) : [];
  if (!parameters.length) return undefined;
  return badRequest(
    parameters.map(({ name, value }) => ({
      message: `path.${name}: ${JSON.stringify(value)} is not valid percent-encoding (RFC 3986).`,
      field: `path.${name}`,
      rule: 'encoding',
    })),
  );
}
