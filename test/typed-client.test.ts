import { expect } from 'chai';
import { harness } from './support/harness';
import { expectStatus, newOrg } from './support/client';
import { makeOrder } from './support/purchasing-fixtures';
import { exportItems } from '../examples/export-items';

/** The integrators' example client (examples/export-items.ts) works against the real server. */
describe('typed client example (openapi-fetch)', () => {
  it('gets a token with client credentials and exports every item through the cursor', async () => {
    const org = await newOrg();
    for (let o = 0; o < 3; o++) {
      await makeOrder(
        org,
        {},
        Array.from({ length: 4 }, (_, i) => ({ line_number: i + 1, description: `Conduit ${o}-${i}`, quantity: 10 + i })),
      );
    }
    const items = await exportItems(harness().baseUrl, org.clientId, org.clientSecret, 5);
    const all = expectStatus(await org.api.get('/items?limit=2500'), 200).body.data as { id: string }[];
    expect(items.map((i) => i.id)).to.deep.equal(all.map((i) => i.id));
    expect(items).to.have.length(12);
  });
});
