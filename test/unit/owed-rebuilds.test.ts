import { expect } from 'chai';
import type { ChangeEntry } from '../../src/feed/append';
import { owedRebuilds } from '../../src/feed/object-states';
import { showing } from '../../src/resources/reconciliation/dependents';

const TAX = '0a000000-0000-4000-8000-000000000001';
const JOB = '0b000000-0000-4000-8000-000000000002';
const ORDER = '0c000000-0000-4000-8000-000000000003';
const entry = (type: string, id: string, changedFields?: string[]): ChangeEntry =>
  ({ type, resource: type.split('.')[0], id, data: { id }, ...(changedFields ? { changedFields, previous: {} } : {}) }) as ChangeEntry;

describe('unit: what a change owes the objects that show its object (object-states.ts owedRebuilds)', () => {
  it('an update owes a targeted rebuild of the showing objects, named by the changed ids, only when it changed a field they show', () => {
    expect(owedRebuilds([entry('tax_code.updated', TAX, ['taxPercent'])])).to.deep.equal({
      whole: [],
      refreshes: [
        { resource: 'item', via: 'tax_code', ids: [TAX] },
        { resource: 'order', via: 'tax_code', ids: [TAX] },
      ],
    });
    expect(owedRebuilds([entry('job.updated', JOB, ['name'])])).to.deep.equal({ whole: [], refreshes: [] });
    // Invoice items show a tax code's code only; a release its order's purchase order number only.
    expect(owedRebuilds([entry('tax_code.updated', TAX, ['code'])]).refreshes.map((r) => r.resource)).to.deep.equal(['item', 'order', 'invoice_item']);
    expect(owedRebuilds([entry('order.updated', ORDER, ['purchaseOrderNumber'])])).to.deep.equal({
      whole: [],
      refreshes: [{ resource: 'release', via: 'order', ids: [ORDER] }],
    });
    expect(owedRebuilds([entry('order.updated', ORDER, ['notes'])])).to.deep.equal({ whole: [], refreshes: [] });
    // Without changedFields, any change may show.
    expect(owedRebuilds([entry('job.updated', JOB)]).refreshes.map((r) => r.resource)).to.deep.equal(['phase', 'cost_category']);
  });

  it('a deletion owes the showing resources a whole backfill; a creation owes nothing', () => {
    expect(owedRebuilds([entry('tax_code.deleted', TAX)])).to.deep.equal({ whole: ['item', 'order', 'invoice_item'], refreshes: [] });
    expect(owedRebuilds([entry('tax_code.created', TAX)])).to.deep.equal({ whole: [], refreshes: [] });
  });

  it('a creation found in the database (a row brought back by SQL) owes its showing objects a rebuild', () => {
    expect(owedRebuilds([entry('order.created', ORDER)], { restored: true })).to.deep.equal({
      whole: [],
      refreshes: [{ resource: 'release', via: 'order', ids: [ORDER] }],
    });
  });

  it('every pair it can owe has the condition that narrows the rebuild', () => {
    const via = ['group', 'tax_code', 'phase', 'cost_category', 'job', 'location', 'item', 'order'];
    for (const resource of via) {
      for (const r of owedRebuilds([entry(`${resource}.updated`, TAX)]).refreshes)
        expect(showing(r.resource, r.via, r.ids), `${r.resource} ${r.via}`).to.be.a('function');
    }
  });
});
