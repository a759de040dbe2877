import { expect } from 'chai';
import { CAPTURED_TABLES } from '../../migrations/20261206000000_feed_captures';
import { RECONCILED } from '../../src/resources';

/**
 * The tables whose changes the database captures (migration 20261206000000, which cannot import
 * source code) are exactly the tables of the reconciled resources' reads: a resource added to
 * its declarations' `reconciled` without a capture trigger (a new migration) fails here.
 */
describe('feed capture tables (migration 20261206000000)', () => {
  it('captures the table of every reconciled resource under that resource, and no other', () => {
    const expected = Object.fromEntries(Object.entries(RECONCILED.defs).map(([resource, def]) => [def!.table, resource]));
    expect(CAPTURED_TABLES).to.deep.equal(expected);
  });
});
