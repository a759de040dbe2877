import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHANGE_EVENTS, CHANGE_TYPES, FEED_RESOURCES } from '../../src/feed/change-types';
import { checkChangeTypes, isChangeType } from '../../src/feed/change-type-filter';

const contract = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'generated', 'openapi.json'), 'utf8'));

describe('unit: change types (one list for the feed, the filters and the contract)', () => {
  it('the contract lists exactly the change types the code can write, and the resources they belong to', () => {
    expect(contract.components.schemas.ChangeType.enum).to.deep.equal([...CHANGE_TYPES]);
    expect([...contract.components.schemas.ChangeResource.enum].sort()).to.deep.equal([...FEED_RESOURCES].sort());
    for (const type of CHANGE_TYPES) expect(FEED_RESOURCES, type).to.include(type.split('.')[0]);
  });

  it('a filter names a listed resource and a listed event: misspelt events are refused, pairs not written today accepted', () => {
    expect(CHANGE_TYPES).to.include.members(['vendor.updated', 'item.deleted', 'order.integration_state_changed', 'job.purchase_order_counter_changed']);
    expect(CHANGE_TYPES.length).to.equal(Object.values(CHANGE_EVENTS).reduce((n, events) => n + events.length, 0));
    for (const type of CHANGE_TYPES) expect(isChangeType(type), type).to.equal(true);
    for (const type of [
      'vendor.update',
      'vendor.exploded',
      'vendor',
      'vendor.',
      '.updated',
      'vendors.updated',
      'VENDOR.UPDATED',
      'vendor.updated ',
      'vendor.updated.x',
    ]) {
      expect(isChangeType(type), type).to.equal(false);
    }
    // Events of other resources: what the feed would write under that name (none yet).
    for (const type of ['group.deleted', 'warehouse_request.created', 'invoice_item.updated']) {
      expect(CHANGE_TYPES, type).not.to.include(type);
      expect(isChangeType(type), type).to.equal(true);
    }
    expect(() => checkChangeTypes('query.types', ['vendor.updated', 'vendor.update'])).to.throw('vendor.update is not a change type');
    expect(() => checkChangeTypes('query.types', ['vendor.updated', 'item.deleted'])).not.to.throw();
  });

  it('ChangeTypeFilter in the contract accepts exactly what the filters accept (the mock refuses the rest, as the service)', () => {
    const pattern = new RegExp(contract.components.schemas.ChangeTypeFilter.pattern);
    const events = [...new Set(Object.values(CHANGE_EVENTS).flat())];
    for (const resource of [...FEED_RESOURCES, 'vendors', 'VENDOR', 'spaceship'])
      for (const event of [...events, 'update', 'exploded', 'created.x', ''])
        expect(pattern.test(`${resource}.${event}`), `${resource}.${event}`).to.equal(isChangeType(`${resource}.${event}`));
    // The feed's query parameter also takes them joined by commas.
    const one = contract.components.schemas.ChangeTypeFilter.pattern.slice(1, -1);
    const query = contract.paths['/changes'].get.parameters.find((p: { name: string }) => p.name === 'types').schema.items;
    expect(query.pattern).to.equal(`^${one}(,${one})*$`);
    const filters = [
      contract.components.schemas.WebhookEndpointCreate.properties.types.items,
      contract.components.schemas.WebhookEndpointUpdate.properties.types.items,
    ];
    for (const items of filters) expect(items).to.deep.equal({ $ref: '#/components/schemas/ChangeTypeFilter' });
    // An endpoint answers the types it was given: any a filter accepts, not only those written today.
    expect(contract.components.schemas.WebhookEndpoint.properties.types.items).to.deep.equal({ $ref: '#/components/schemas/ChangeTypeFilter' });
    // A webhook delivery's type is one the feed writes.
    expect(contract.components.schemas.WebhookEvent.properties.type).to.deep.equal({ $ref: '#/components/schemas/ChangeType' });
  });
});
