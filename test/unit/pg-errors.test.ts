import { expect } from 'chai';
import pg from 'pg';
import { fromDatabaseError } from '../../src/db/pg-errors';
import { harness } from '../support/harness';

/** A real pg client whose server session is ended under it (as an operator's pg_terminate_backend does). */
async function terminatedClient(): Promise<pg.Client> {
  // A session of its own on the server (not through a pooler, whose process IDs are not the server's).
  const client = new pg.Client({ connectionString: process.env.DATABASE_DIRECT_URL || harness().databaseUrl });
  client.on('error', () => undefined); // the session's end arrives as an 'error' event too
  await client.connect();
  const ended = new Promise((resolve) => client.once('end', resolve));
  await harness().db.raw('SELECT pg_terminate_backend(?)', [(client as unknown as { processID: number }).processID]);
  await ended;
  return client;
}

const errorOf = async (work: () => Promise<unknown>): Promise<unknown> => {
  try {
    await work();
  } catch (err) {
    return err;
  }
  throw new Error('expected the work to fail');
};

describe('unit: database errors of a lost connection are 503, not 500', () => {
  it('a query on a client whose session the server ended', async () => {
    const client = await terminatedClient();
    const err = await errorOf(() => client.query('SELECT 1'));
    expect(fromDatabaseError(err).status, String(err)).to.equal(503);
    await client.end().catch(() => undefined);
  });

  it("the socket's own errors: reset, broken pipe, refused, timed out", () => {
    for (const code of ['ECONNRESET', 'EPIPE', 'ECONNREFUSED', 'ETIMEDOUT']) {
      const err = Object.assign(new Error(code === 'EPIPE' ? 'write EPIPE' : `read ${code}`), { code, errno: -1, syscall: 'write' });
      expect(fromDatabaseError(err).status, code).to.equal(503);
    }
    for (const message of [
      'Connection ended unexpectedly',
      'Client has encountered a connection error and is not queryable',
      'This socket has been ended by the other party',
    ]) {
      expect(fromDatabaseError(new Error(message)).status, message).to.equal(503);
    }
    // Anything else stays an internal error.
    expect(fromDatabaseError(new Error('something else')).status).to.equal(500);
  });

  it("PgBouncer's own errors (08P01) of a lost server connection; PostgreSQL's protocol violation stays a 500", () => {
    // What the client gets when the server connection under its transaction is terminated behind
    // PgBouncer in transaction mode (scripts/pgbouncer-check.mjs: the killed batch of changes-race.test).
    for (const message of ['server conn crashed?', 'query_wait_timeout', 'no more connections allowed (max_client_conn)']) {
      const err = Object.assign(new Error(message), { code: '08P01', severity: 'ERROR' });
      expect(fromDatabaseError(err).status, message).to.equal(503);
    }
    expect(fromDatabaseError(Object.assign(new Error('invalid frontend message type 0'), { code: '08P01' })).status).to.equal(500);
  });
});
