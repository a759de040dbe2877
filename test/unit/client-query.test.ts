import { expect } from 'chai';
import { querySerializer } from '../../client/src/query.mjs';
import { retryAfterMs } from '../../client/src/retry.mjs';

/** The client kit's query syntax (the guide "Filters and pagination") and its reading of Retry-After (RFC 9110). */
describe('client kit: query strings and Retry-After', () => {
  it('writes filters as filter[field_op]=v, lists as filter[field_in][]=v each, top-level arrays repeated, dates in ISO 8601', () => {
    const when = new Date(Date.UTC(2026, 10, 1));
    const query = {
      limit: 5,
      filter: { state: 'OPEN', code_in: ['A,1', 'B&2'], updatedAt_gt: when, skipped: undefined },
      types: ['vendor.created', 'vendor.updated'],
      after: undefined,
    };
    expect(decodeURIComponent(querySerializer(query))).to.equal(
      'limit=5&filter[state]=OPEN&filter[code_in][]=A,1&filter[code_in][]=B&2&filter[updatedAt_gt]=2026-11-01T00:00:00.000Z&types=vendor.created&types=vendor.updated',
    );
    // Values are encoded; the brackets stay readable.
    expect(querySerializer({ filter: { code_in: ['B&2'] } })).to.equal('filter[code_in][]=B%262');
    expect(querySerializer({})).to.equal('');
  });

  it('reads Retry-After as seconds or an HTTP date, and nothing else', () => {
    expect(retryAfterMs('3')).to.equal(3000);
    expect(retryAfterMs(' 0 ')).to.equal(0);
    expect(retryAfterMs(null)).to.equal(undefined);
    expect(retryAfterMs('soon')).to.equal(undefined);
    expect(retryAfterMs('-1')).to.equal(undefined);
    expect(retryAfterMs(new Date(Date.now() - 60_000).toUTCString())).to.equal(0);
    expect(retryAfterMs(new Date(Date.now() + 3_600_000).toUTCString())).to.be.within(3_500_000, 3_600_000);
  });
});
