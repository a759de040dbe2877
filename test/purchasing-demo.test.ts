import { expect } from 'chai';
import { harness } from './support/harness';
import { Client, expectStatus } from './support/client';
import { createOrganization } from '../src/admin/provision';
import { loadDemoData } from '../seeds/demo';

describe('purchasing demo data', () => {
  let api: Client;
  before(async () => {
    const org = await createOrganization(harness().db, { name: 'Demo Purchasing', adminEmail: `ava.${process.pid}.${Date.now()}@summitridge.example` });
    await loadDemoData(harness().db, org.organization.id);
    api = new Client(org.apiKey);
  });

  it('has orders of every type, mode, state, window, received state and integration state', async () => {
    const orders = expectStatus(await api.get('/orders?limit=1000'), 200).body as any[];
    const values = (k: string) => new Set(orders.map((o) => o[k]));
    expect([...values('type')]).to.include.members(['HOLD_FOR_RELEASE', 'MAJOR', 'STANDARD']);
    expect([...values('mode')]).to.include.members(['ISSUE_PO', 'PRE_ACKNOWLEDGED', 'REQUEST_FOR_QUOTE']);
    expect([...values('state')]).to.include.members(['DRAFT', 'BID_ACTIVE', 'BID_CANCELLED', 'FINALIZING', 'ACTIVE', 'CANCELLED', 'COMPLETE']);
    expect([...values('needByWindow')]).to.include.members(['ASAP', 'AMEarly', 'AM', 'PM', 'PMLate', 'UNSPECIFIED']);
    expect([...values('receivedState')]).to.include.members(['NO_DELIVERIES', 'PARTIALLY_RECEIVED', 'FULLY_RECEIVED']);
    expect([...values('integrationState')]).to.include.members(['NOT_LINKED', 'LINKING', 'LINKED', 'OUT_OF_SYNC', 'ERROR']);
    expect(orders.find((o) => o.integrationState === 'ERROR').integrationMessage).to.be.a('string');
    expect(orders.some((o) => o.attachments.length > 0)).to.equal(true);
    expect(orders.some((o) => o.headerCustomFieldValue !== null)).to.equal(true);
  });

  it('has items priced per each, C and M, with and without prices and discounts, tags and notifications', async () => {
    const items = expectStatus(await api.get('/items?limit=2500'), 200).body.data as any[];
    expect(new Set(items.map((i) => i.unitsOfMeasure))).to.include.members(['EA', 'C', 'M', null]);
    expect(items.some((i) => i.unitPrice === null)).to.equal(true);
    expect(items.some((i) => i.unitDiscount > 0)).to.equal(true);
    const orders = expectStatus(await api.get('/orders?limit=1000'), 200).body as any[];
    const tagged = [];
    for (const o of orders) tagged.push(...(expectStatus(await api.get(`/order/${o.id}/tags`), 200).body as any[]));
    expect(tagged.length).to.be.greaterThan(0);
    const notes = expectStatus(await api.get('/notifications'), 200).body as any[];
    expect(new Set(notes.map((n) => n.type))).to.have.all.keys('integration_issue', 'integration_issue_resolved');
  });
});
