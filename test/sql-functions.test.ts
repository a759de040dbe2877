import { expect } from 'chai';
import { harness } from './support/harness';

/**
 * Our SQL functions are inlined by PostgreSQL's planner into the statements that call them
 * (migration 20261206060000): a SQL function declared more strictly than its body (IMMUTABLE over
 * a STABLE `to_char`) runs as a call of its own per value, which made every timestamp of every
 * read cost several microseconds of the database's time. EXPLAIN VERBOSE shows an inlined
 * function's body in the plan's output, a function that is not inlined by its name.
 */
describe('SQL functions', () => {
  it('api_ts is inlined: the plan computes to_char, it does not call api_ts', async () => {
    const { rows } = await harness().db.raw(`EXPLAIN (VERBOSE, COSTS OFF) SELECT api_ts(o.created_at) FROM organizations o WHERE o.id = ?`, [
      '00000000-0000-0000-0000-000000000000',
    ]);
    const plan = (rows as { 'QUERY PLAN': string }[]).map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).to.match(/to_char\(/);
    expect(plan).not.to.match(/api_ts\(/);
  });

  it('api_ts answers what it answered before: ISO 8601 in UTC with milliseconds, null for null', async () => {
    const { rows } = await harness().db.raw(
      `SELECT api_ts('2026-12-06 13:02:05.517+01'::timestamptz) AS a, api_ts('2026-01-01 00:00:00+00'::timestamptz) AS b, api_ts(NULL) AS c`,
    );
    expect(rows[0]).to.deep.equal({ a: '2026-12-06T12:02:05.517Z', b: '2026-01-01T00:00:00.000Z', c: null });
  });
});
