import { ApiError, badRequest, conflict, internal, notFound, unavailable } from '../errors';

const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

interface PgError {
  code?: string;
  detail?: string;
  constraint?: string;
  table?: string;
  message?: string;
}

/** `items_organization_id_vendor_part_number_id_index` of `items` -> `vendor_part_number`. */
function indexedColumn(table: string | undefined, index: string | undefined): string | undefined {
  if (!table || !index) return undefined;
  const m = new RegExp(`^${table}_organization_id_(.+?)(?:_id)?_(?:index|unique)$`).exec(index);
  return m?.[1];
}

/**
 * An index entry holds at most 2704 bytes (btree): with the organization and the ID beside it, a
 * text of up to this many bytes of UTF-8 always fits, even uncompressed. Batches check their
 * indexed texts against it before writing, to report them per position (see tooLongToIndex); the
 * database's own error (54000 below) is the backstop of every other write.
 */
export const INDEX_TEXT_BYTES = 2600;
export const INDEX_TEXT_TOO_LONG = 'text too long to be indexed (more than about 2,600 bytes in UTF-8); shorten it';

/** Whether a text is longer in UTF-8 than an index entry surely holds (a UTF-16 unit is at most 3 bytes). */
export const tooLongToIndex = (text: string): boolean => text.length * 3 > INDEX_TEXT_BYTES && Buffer.byteLength(text, 'utf8') > INDEX_TEXT_BYTES;

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
    case '54000': {
      // index row size 3048 exceeds btree version 4 maximum 2704 for index "cost_categories_organization_id_description_id_index"
      // A text that fits its field's maxLength (characters) can still be too long for its index
      // (bytes): up to 4 bytes a character in UTF-8. The index names the field (knex's names:
      // table, then columns, organization_id first and id last).
      const column = indexedColumn(e.table, e.constraint);
      const field = column ? `body.${camel(column)}` : undefined;
      const message = `${field ? field + ': ' : ''}${INDEX_TEXT_TOO_LONG}.`;
      return badRequest([{ message, ...(field ? { field, rule: 'maxLength' } : {}) }]);
    }
    case '40001':
    case '40P01':
      return unavailable('The request conflicted with a concurrent change; retry it.');
    case '57014':
      // statement_timeout (DB_STATEMENT_TIMEOUT_MS): the database gave up on a runaway statement.
      return unavailable('The request took too long in the database and was cancelled; retry later.');
    case '57P01':
    case '57P02':
    case '57P03':
    case '53300':
    case '08000':
    case '08001':
    case '08003':
    case '08004':
    case '08006':
      return unavailable();
    case '08P01':
      // PgBouncer reports its own trouble as protocol_violation: a server connection lost under the
      // client's transaction ("server conn crashed?"), a pool that could not be had in time. An
      // outage, as when PostgreSQL itself ends the session (57P01). PostgreSQL's own 08P01 is a
      // malformed message from the driver: ours, a 500.
      if (
        /server conn crashed|server closed the connection unexpectedly|query_wait_timeout|no more connections allowed|pgbouncer cannot connect to server|server login has been failing/.test(
          e.message ?? '',
        )
      )
        return unavailable();
      break;
    case '55000':
      // The database refuses connections (ALLOW_CONNECTIONS false, during maintenance): an outage,
      // not a bug. Other 55000 errors (an object not in the state a statement needs) are ours.
      if (/not currently accepting connections/.test(e.message ?? '')) return unavailable();
      break;
  }
  // The connection itself failed (the server ended the session, the network dropped it): an
  // outage, answered 503. pg reports a client whose session was ended under it, when next used, as
  // "not queryable"; the socket's own errors carry Node's codes.
  if (['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT'].includes(String(e.code))) return unavailable();
  const msg = String(e.message ?? '');
  if (
    /ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|Knex: Timeout acquiring a connection|Connection terminated|Connection ended unexpectedly|not queryable|socket has been ended|timeout exceeded when trying to connect/.test(
      msg,
    )
  ) {
    return unavailable();
  }
  return internal();
}
