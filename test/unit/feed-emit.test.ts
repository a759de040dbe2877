import { expect } from 'chai';
import { withFeed } from '../../src/resources/feed-emit';
import { ChangeCollector } from '../../src/feed/append';
import { JsonParts } from '../../src/db/json';
import type { HandlerMap } from '../../src/http/handler';

/** Runs createTaxCode, wrapped by withFeed, with a handler replying `body`; returns the entries recorded. */
async function entriesFor(body: unknown, status = 201) {
  const handlers = withFeed({ createTaxCode: async () => ({ status, body }) } as unknown as HandlerMap) as unknown as Record<
    string,
    (ctx: unknown) => Promise<{ status: number; body?: unknown }>
  >;
  const changes = new ChangeCollector();
  const reply = await handlers.createTaxCode({ db: undefined, caller: { organizationId: 'org' }, params: {}, query: {}, body: {}, changes });
  expect(reply.body).to.equal(body);
  return changes.entries;
}

describe('unit: feed entries from a reply (withFeed)', () => {
  const taxCode = { id: '0e1f2a3b-4c5d-4e6f-8a7b-9c0d1e2f3a4b', code: 'TX', taxPercent: 0.08 };
  const expected = [{ type: 'tax_code.created', resource: 'tax_code', id: taxCode.id, data: taxCode }];

  it('reads the reply whether it is an object, JSON text from PostgreSQL or JSON in parts', async () => {
    expect(await entriesFor(taxCode)).to.deep.equal(expected);
    expect(await entriesFor(JSON.stringify(taxCode))).to.deep.equal(expected);
    const text = JSON.stringify(taxCode);
    expect(await entriesFor(new JsonParts([text.slice(0, 10), text.slice(10)]))).to.deep.equal(expected);
  });

  it('records nothing for a reply that is not a success', async () => {
    expect(await entriesFor({ title: 'Conflict' }, 409)).to.deep.equal([]);
  });
});
