import { ApiError, badRequest, conflict, internal, notFound, unavailable } from '../errors';

const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

interface PgError {
  code?: string;
  detail?: string;
  constraint?: string;
  message?: string;
}

/** Maps PostgreSQL and connection errors to API errors, in one place. */
export function fromDatabaseError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const e = (err ?? {}) as PgError;
  switch (e.code) {
    case '23505': {
      // Key (organization_id, code)=(..., TX-CA) already exists.  /  Key (organization_id, lower(email))=...
      const m = /Key \((.*)\)=\((.*)\) already exists/.exec(e.detail ?? '');
      const cols = m ? m[1].split(', ') : [];
      const vals = m ? m[2].split(', ') : [];
      const last = cols.length ? cols[cols.length - 1] : 'value';
      const field = camel(last.replace(/^lower\((.*)\)$/, '$1'));
      const value = vals.length ? vals[vals.length - 1] : '';
      return conflict(`body.${field}`, `${value} is already used`);
    }
    case '23503':
      return notFound('A referenced object does not exist in your organization.');
    case '23502':
    case '23514':
    case '22P02':
    case '22003':
    case '22007':
    case '22008':
      return badRequest('A value is not valid for its field.');
    case '22021':
    case '22P05':
      // Text PostgreSQL cannot store (a NUL byte): the request pipeline refuses these first
      // (src/http/input-guard.ts); this is the backstop for any other way in.
      return badRequest('A text value contains a character that cannot be stored (a NUL byte, \\u0000).');
    case '40001':
    case '40P01':
      return unavailable('The request conflicted with a concurrent change; retry it.');
    case '57014':
      // statement_timeout (DB_STATEMENT_TIMEOUT_MS): the database gave up on a runaway statement.
      return unavailable('The request took too long in the database and was cancelled; retry later.');
    case '57P01':
    case '57P03':
    case '53300':
      return unavailable();
  }
  const msg = String(e.message ?? '');
  if (/ECONNREFUSED|ETIMEDOUT|Knex: Timeout acquiring a connection|Connection terminated|timeout exceeded when trying to connect/.test(msg)) {
    return unavailable();
  }
  return internal();
}
