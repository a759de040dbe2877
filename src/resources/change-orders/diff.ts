import type { DiffValues, OrderSnapshot } from './snapshot';

/**
 * The change-order diff rules between two versions of an order:
 * - modifiedOrderValues: only the order values that changed, with their new value (null = deleted);
 * - addedItems / deletedItems: whole items (every ItemDiff key), matched by item id;
 * - modifiedItems: id, lineNumber, createdAt, updatedAt plus only the changed values (null =
 *   deleted). An item counts as modified when a value other than updatedAt changed.
 */
export interface ChangeOrderDiff {
  modifiedOrderValues: DiffValues;
  addedItems: DiffValues[];
  deletedItems: DiffValues[];
  modifiedItems: DiffValues[];
}

const ALWAYS_IN_MODIFIED_ITEMS = ['id', 'lineNumber', 'createdAt', 'updatedAt'] as const;

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

function changedValues(before: DiffValues, after: DiffValues): DiffValues {
  const out: DiffValues = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (!same(before[key], after[key])) out[key] = after[key] ?? null;
  }
  return out;
}

export function diffSnapshots(before: OrderSnapshot, after: OrderSnapshot): ChangeOrderDiff {
  const beforeItems = new Map(before.items.map((i) => [String(i.id), i]));
  const afterIds = new Set(after.items.map((i) => String(i.id)));
  const modifiedItems: DiffValues[] = [];
  for (const item of after.items) {
    const prior = beforeItems.get(String(item.id));
    if (!prior) continue;
    const changed = changedValues(prior, item);
    delete changed.updatedAt;
    if (!Object.keys(changed).length) continue;
    const always = Object.fromEntries(ALWAYS_IN_MODIFIED_ITEMS.map((k) => [k, item[k]]));
    modifiedItems.push({ ...always, ...changed });
  }
  return {
    modifiedOrderValues: changedValues(before.order, after.order),
    addedItems: after.items.filter((i) => !beforeItems.has(String(i.id))),
    deletedItems: before.items.filter((i) => !afterIds.has(String(i.id))),
    modifiedItems,
  };
}
