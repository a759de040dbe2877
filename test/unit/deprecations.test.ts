import { expect } from 'chai';
import { contractOf } from '../../src/versions/registry';
import { deprecationsIn, present } from '../../src/versions/deprecations';

/**
 * What a version's contract marks deprecated, found once per version (src/versions/deprecations.ts).
 * No served contract deprecates a parameter or a request field today, so the contract of 2026-06-01
 * is marked here as a later version might be.
 */
describe('deprecations of a version contract', () => {
  const OLD = '2026-06-01';

  it('finds deprecated query and header parameters, body fields at any depth, and the reply fields an operation carries', () => {
    const doc = structuredClone(contractOf(OLD));
    const listOrders = doc.paths['/orders'].get;
    listOrders.parameters.push({ name: 'legacySort', in: 'query', deprecated: true, schema: { type: 'string' } });
    listOrders.parameters.push({ name: 'X-Legacy', in: 'header', deprecated: true, schema: { type: 'string' } });
    doc.components.schemas.OrderUpdate.properties.notes.deprecated = true;
    const items = doc.components.schemas.ItemInput;
    const field = Object.keys(items.properties)[0];
    items.properties[field].deprecated = true;

    const index = deprecationsIn(doc);
    expect(index.get('listOrders')).to.deep.include({
      operation: false,
      parameters: [
        { in: 'query', name: 'legacySort' },
        { in: 'header', name: 'X-Legacy' },
      ],
      responseFields: ['response.Order.isProjectPO', 'response.Order.version'],
    });
    expect(index.get('updateOrder')!.bodyFields).to.deep.include(['notes']);
    const itemPaths = [...index.values()].flatMap((d) => d.bodyFields).filter((p) => p.includes('[]'));
    expect(itemPaths.map((p) => p[p.length - 1])).to.include(field);
    // An operation with nothing deprecated is not in the index (its requests cost a look-up).
    expect(index.has('getJob')).to.equal(false);
  });

  it('the served contracts: only the older version deprecates (its order fields, in replies)', () => {
    expect(deprecationsIn(contractOf('2026-12-15')).size).to.equal(0);
    const old = deprecationsIn(contractOf(OLD));
    expect(old.get('getOrder')).to.deep.equal({
      operation: false,
      parameters: [],
      bodyFields: [],
      responseFields: ['response.Order.isProjectPO', 'response.Order.version'],
    });
  });

  it('tells whether a body holds a value at a path, through arrays', () => {
    expect(present({ notes: null }, ['notes'])).to.equal(true);
    expect(present({}, ['notes'])).to.equal(false);
    expect(present({ items: [{}, { note: 'x' }] }, ['items', '[]', 'note'])).to.equal(true);
    expect(present({ items: [{}] }, ['items', '[]', 'note'])).to.equal(false);
    expect(present({ items: { note: 'x' } }, ['items', '[]', 'note'])).to.equal(false);
  });
});
