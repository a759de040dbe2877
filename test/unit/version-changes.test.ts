import { expect } from 'chai';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { VERSIONS } from '../../api/versions/index';
import retireDeprecatedOrderFields from '../../api/versions/2026-12-15-retire-deprecated-order-fields';
import { olderContract, transformsOf } from '../../src/versions/derive';
import { entryDown } from '../../src/versions/feed';
import { JsonParts } from '../../src/db/json';
import { changedFieldsUpAt, isServed, movesOf, NEWEST, shownAtNewest, statusOf } from '../../src/versions/registry';
import { SchemaWalker } from '../../src/versions/walk';
import type { Contract } from '../../src/versions/types';
import { GENERATED_DIR } from '../../src/paths';

const newest = JSON.parse(readFileSync(join(GENERATED_DIR, 'openapi.json'), 'utf8')) as Contract;
const older = JSON.parse(readFileSync(join(GENERATED_DIR, 'versions', '2026-06-01', 'openapi.json'), 'utf8')) as Contract;
const change = retireDeprecatedOrderFields;
const down = transformsOf([change], 'down');
const up = transformsOf([change], 'up');

/** A validator of one component schema of a contract (OpenAPI 3.0 `nullable` as ajv reads it). */
function validatorOf(doc: Contract, name: string) {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat('int32', true).addFormat('int64', true).addFormat('float', true).addFormat('double', true);
  const schemas = JSON.parse(JSON.stringify(doc.components.schemas).replaceAll('#/components/schemas/', 'c#/components/schemas/'));
  ajv.addSchema({ $id: 'c', components: { schemas } } as any);
  return ajv.compile({ $ref: `c#/components/schemas/${name}` });
}

const orderExample = () => structuredClone(newest.paths['/orders/{orderId}'].get.responses['200'].content['application/json'].example);
/** A feed entry (newest shape) of the contract's example order changed from MAJOR to STANDARD. */
const orderMadeStandard = (cursor: string) => {
  const order = orderExample();
  return {
    cursor,
    type: 'order.updated',
    resource: 'order',
    id: order.id,
    data: { ...order, type: 'STANDARD' },
    changedFields: ['type'],
    previous: { type: 'MAJOR' },
  };
};

describe('version changes (api/versions/)', () => {
  it('lists the versions newest first; the first deprecated, its sunset at least 12 months after its successor', () => {
    expect(VERSIONS.map((v) => v.version)).to.deep.equal(['2026-12-15', '2026-06-01']);
    expect(NEWEST).to.equal('2026-12-15');
    const [current, first] = VERSIONS;
    expect([statusOf(current), statusOf(first)]).to.deep.equal(['current', 'deprecated']);
    const months = (Date.parse(first.sunsetAt!) - Date.parse(current.releasedAt)) / (30.4 * 86_400_000);
    expect(months).to.be.at.least(12);
    expect(isServed(first, Date.parse('2027-12-14T23:59:59Z'))).to.equal(true);
    expect(isServed(first, Date.parse('2027-12-15T00:00:00Z'))).to.equal(false);
  });

  it('moves an order down: the retired fields back in their places, computed from the newer ones', () => {
    const order = orderExample();
    expect(validatorOf(newest, 'Order')(order)).to.equal(true);
    const moved = down.get('Order')!({ ...order, type: 'MAJOR', versionNumber: 7 });
    expect(moved).to.include({ version: 7, isProjectPO: true });
    const keys = Object.keys(moved);
    expect(keys.slice(keys.indexOf('versionNumber'), keys.indexOf('versionNumber') + 2)).to.deep.equal(['versionNumber', 'version']);
    expect(keys[keys.indexOf('integrationState') + 1]).to.equal('isProjectPO');
    const validOld = validatorOf(older, 'Order');
    expect(validOld(down.get('Order')!(order)), JSON.stringify(validOld.errors)).to.equal(true);
    expect(validOld(order)).to.equal(false);
    // A tombstone (no type, no versionNumber) gets no made-up values.
    expect(down.get('Order')!({ id: order.id, deletedAt: order.createdAt })).to.deep.equal({ id: order.id, deletedAt: order.createdAt });
  });

  it('moves orders of different key lists down one after the other, each with its own keys in order (the reply template is made again when the keys differ)', () => {
    const order = orderExample();
    const withoutNotes = Object.fromEntries(Object.entries(order).filter(([k]) => k !== 'notes'));
    const reordered = { versionNumber: 2, type: 'MINOR', ...order };
    const expected = (o: Record<string, unknown>) => {
      // What withKeyAfter's key-by-key copy gave: each retired field right after the field it followed.
      const out: [string, unknown][] = [];
      for (const [k, v] of Object.entries(o)) {
        out.push([k, v]);
        if (k === 'versionNumber') out.push(['version', o.versionNumber]);
        if (k === 'integrationState') out.push(['isProjectPO', o.type === 'MAJOR']);
      }
      return out;
    };
    for (const o of [order, withoutNotes, order, reordered, withoutNotes]) expect(Object.entries(down.get('Order')!(o))).to.deep.equal(expected(o));
    // The field it followed absent: the retired field comes last, as before.
    const { integrationState: _dropped, ...noState } = order;
    const moved = Object.keys(down.get('Order')!(noState));
    expect(moved[moved.length - 1]).to.equal('isProjectPO');
  });

  it('moves a request body up: the older spelling renamed, nothing else touched', () => {
    expect(up.get('OrderInput')!({ notes: 'n', isVisibileToField: false })).to.deep.equal({ notes: 'n', isVisibleToField: false });
    expect(up.get('OrderUpdate')!({ isVisibileToField: true })).to.deep.equal({ isVisibleToField: true });
    expect(down.get('OrderUpdate')!({ isVisibleToField: true })).to.deep.equal({ isVisibileToField: true });
    const moves = movesOf('2026-06-01')!;
    expect(moves.bodyUp('updateOrder', { isVisibileToField: true })).to.deep.equal({ isVisibleToField: true });
    expect(moves.bodyUp('updateVendor', { isVisibileToField: true })).to.deep.equal({ isVisibileToField: true });
    expect(movesOf(NEWEST)).to.equal(undefined);
  });

  it('leaves out the request move of an operation none of whose request differs at the version', () => {
    const moves = movesOf('2026-06-01')!;
    // A job's read and a vendor's write: nothing in their query or body changed.
    expect(moves.requestMover('getJob')).to.equal(null);
    expect(moves.requestMover('updateVendor')).to.equal(null);
    // An order's write (its body's spelling) and the feed (`fields` names fields of its entries: a retired one by those it follows from).
    expect(moves.requestMover('updateOrder')!({}, { isVisibileToField: true }).body).to.deep.equal({ isVisibleToField: true });
    expect(moves.requestMover('listChanges')!({ fields: 'isProjectPO' }, undefined).query.fields).to.include('type');
  });

  it('moves a whole reply down by its schema: lists, deletions, and only the objects that changed', () => {
    const moves = movesOf('2026-06-01')!;
    const order = orderExample();
    const [listed] = moves.replyDown('listOrders', 200, [order]) as any[];
    expect(listed).to.include({ isProjectPO: false, version: order.versionNumber });
    expect(moves.replyDown('deleteOrder', 200, { ...order, deletedAt: order.createdAt })).to.include({ isProjectPO: false });
    expect(moves.replyMover('listOrders', 200)).to.be.a('function');
    expect(moves.replyMover('listVendors', 200)).to.equal(null);
    const vendor = { id: 'v' };
    expect(moves.replyDown('getVendor', 200, vendor)).to.equal(vendor);
  });

  it('moves a feed entry down: data, changedFields and previous as the older version names them', () => {
    const entry = orderMadeStandard('c');
    const moved = entryDown(down)(entry) as any;
    expect(moved.data).to.include({ isProjectPO: false, type: 'STANDARD' });
    expect(moved.changedFields).to.deep.equal(['isProjectPO', 'type']);
    expect(moved.previous).to.deep.equal({ isProjectPO: true, type: 'MAJOR' });
    // A change the read does not show stays empty; other resources pass as they are.
    expect((entryDown(down)({ ...entry, changedFields: [], previous: {} }) as any).changedFields).to.deep.equal([]);
    const vendorEntry = { ...entry, resource: 'vendor' };
    expect(entryDown(down)(vendorEntry)).to.equal(vendorEntry);
  });

  it("moves a feed page kept as its entries' texts entry by entry: as the whole page would move, the entries it leaves sent as they were", () => {
    const moves = movesOf('2026-06-01')!;
    const orderEntry = orderMadeStandard('a');
    // As PostgreSQL writes jsonb: spaces a JSON.stringify would not put there.
    const vendorText =
      '{"cursor":"b","type":"vendor.updated","resource":"vendor","id":"v","data":{"id" : "v", "name" : "Acme"},"changedFields":["name"],"previous":{"name" : "A"}}';
    const head = '{"data":[';
    const tail = '],"nextCursor":"b","hasMore":false}';
    const page = JsonParts.gather(head, [JSON.stringify(orderEntry), vendorText], tail, true);
    page.nextQuery = null;
    const whole = (query: Record<string, unknown>) => moves.replyDown('listChanges', 200, JSON.parse(page.text()), query);
    for (const query of [{}, { fields: 'isProjectPO' }, { fields: 'name' }]) {
      const moved = moves.partsDown('listChanges', 200, page, query)!;
      expect(JSON.parse(moved.text()), JSON.stringify(query)).to.deep.equal(whole(query));
      expect(moved.nextQuery).to.equal(null);
    }
    const all = moves.partsDown('listChanges', 200, page, {})!.text();
    expect(all).to.include(vendorText);
    expect(JSON.parse(all).data[0]).to.have.nested.property('data.isProjectPO', false);
    // Without the entries' texts, the reply is moved whole.
    expect(moves.partsDown('listChanges', 200, JsonParts.gather(head, [vendorText], tail), {})).to.equal(undefined);
  });

  it('derives the older contract from the newer one: the schemas as they were, every example valid there', () => {
    const derived = olderContract(newest, [change]);
    // All but the description, which says which version it describes (scripts/generate.mjs).
    expect({ ...derived, info: undefined }).to.deep.equal({ ...older, info: undefined });
    expect(derived.components.schemas.Order.required.slice(0, 3)).to.deep.equal(['id', 'versionNumber', 'version']);
    expect(derived.components.schemas.Order.properties.isProjectPO).to.include({ deprecated: true, type: 'boolean' });
    expect(derived.components.schemas.OrderInput.properties).to.have.property('isVisibileToField').that.not.has.property('nullable', false);
    expect(Object.keys(derived.components.schemas.OrderInput.properties)).to.not.include('isVisibleToField');
    const validOld = validatorOf(derived, 'Order');
    const example = derived.paths['/orders/{orderId}'].get.responses['200'].content['application/json'].example;
    expect(validOld(example), JSON.stringify(validOld.errors)).to.equal(true);
    expect(validOld(derived.components.examples!.OrderUpdated.value)).to.equal(true);
    // The newer contract is left as it was.
    expect(newest.components.schemas.Order.properties).to.not.have.property('version');
  });

  it("moves a webhook endpoint's fields (x-changed-fields) up to the newest names and down to the older ones", () => {
    const moves = movesOf('2026-06-01')!;
    const stored = (moves.bodyUp('createWebhookEndpoint', { url: 'https://x.example', fields: ['isProjectPO', 'notes'] }) as any).fields;
    expect(stored).to.have.members(['isProjectPO', 'type', 'notes']);
    expect(changedFieldsUpAt('2026-06-01', ['version'])).to.have.members(['version', 'versionNumber']);
    expect(changedFieldsUpAt(NEWEST, ['version'])).to.deep.equal(['version']);
    // The newest shows the older-only name no more once the fields it follows from are there; an older-only name alone stays.
    expect(shownAtNewest(stored)).to.have.members(['type', 'notes']);
    expect(shownAtNewest(['isProjectPO'])).to.deep.equal(['isProjectPO']);
    const [listed] = moves.replyDown('listWebhookEndpoints', 200, [{ id: 'e', fields: ['type', 'notes'] }]) as any[];
    expect(listed.fields).to.have.members(['type', 'notes', 'isProjectPO']);
    expect((moves.replyDown('createWebhookEndpoint', 201, { id: 'e', fields: null, secret: 's' }) as any).fields).to.equal(null);
    expect(moves.replyMover('getWebhookEndpoint', 200)).to.be.a('function');
  });

  it('walks only the schemas that can hold a changed object', () => {
    const walker = new SchemaWalker(newest, down);
    expect(walker.touches({ $ref: '#/components/schemas/Vendor' })).to.equal(false);
    expect(walker.touches({ type: 'array', items: { $ref: '#/components/schemas/OrderDeleted' } })).to.equal(true);
  });
});
