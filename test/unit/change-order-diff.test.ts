import { expect } from 'chai';
import { diffSnapshots } from '../../src/resources/change-orders/diff';

const item = (id: string, over: Record<string, unknown> = {}) => ({
  id,
  lineNumber: 1,
  createdAt: '2026-10-01T00:00:00.000Z',
  updatedAt: '2026-10-01T00:00:00.000Z',
  description: 'Conduit',
  quantity: 10,
  notes: 'keep',
  ...over,
});

describe('unit: change-order diff', () => {
  const before = {
    order: { id: 'o', notes: 'old', discount: 10, state: 'ACTIVE', updatedAt: 't1' },
    items: [item('a'), item('b', { lineNumber: 2 }), item('c', { lineNumber: 3 })],
  };
  const after = {
    order: { id: 'o', notes: null, discount: 10, state: 'ACTIVE', updatedAt: 't2' },
    items: [
      item('a', { quantity: 12, notes: null, updatedAt: '2026-11-01T00:00:00.000Z' }),
      item('b', { lineNumber: 2, updatedAt: '2026-11-01T00:00:00.000Z' }),
      item('d', { lineNumber: 4 }),
    ],
  };
  const diff = diffSnapshots(before, after);

  it('keeps only the changed order values, null meaning deleted', () => {
    expect(diff.modifiedOrderValues).to.deep.equal({ notes: null, updatedAt: 't2' });
  });

  it('lists added and deleted items whole', () => {
    expect(diff.addedItems).to.deep.equal([after.items[2]]);
    expect(diff.deletedItems).to.deep.equal([before.items[2]]);
  });

  it('lists modified items with id, lineNumber, createdAt, updatedAt and only the changed values', () => {
    expect(diff.modifiedItems).to.deep.equal([
      { id: 'a', lineNumber: 1, createdAt: '2026-10-01T00:00:00.000Z', updatedAt: '2026-11-01T00:00:00.000Z', quantity: 12, notes: null },
    ]);
  });

  it('does not count an item whose only change is updatedAt as modified', () => {
    expect(diff.modifiedItems.map((i) => i.id)).to.not.include('b');
  });
});
