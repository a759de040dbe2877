// Version 2026-12-15 against 2026-06-01: the order fields deprecated since the first release go,
// and the seed's misspelling is corrected. The handlers know only the 2026-12-15 names.
import type { VersionChange } from '../../src/versions/types.ts';
import { renamedField, retiredField } from '../../src/versions/field-changes.ts';

const visibleToField = (schema: string) => renamedField(schema, 'isVisibileToField', 'isVisibleToField', 'Whether field users see the order (spelled as in the published interface).');

const change: VersionChange = {
  title: 'Order: `version` and `isProjectPO` retired, `isVisibileToField` spelled `isVisibleToField`',
  description:
    'An order carries its change-order number once, as `versionNumber`, and its kind once, as `type` (`MAJOR` is what `isProjectPO` said). ' +
    'The field that says whether field users see an order is spelled `isVisibleToField` when an order is created or changed.',
  fields: [
    retiredField('Order', 'version', {
      after: 'versionNumber',
      required: true,
      from: ['versionNumber'],
      definition: {
        type: 'integer',
        format: 'int32',
        deprecated: true,
        description: 'Deprecated: the same number as `versionNumber` (use that; this field goes away in the next major version).',
        example: 3,
      },
      value: (order) => order.versionNumber,
    }),
    retiredField('Order', 'isProjectPO', {
      after: 'integrationState',
      required: true,
      from: ['type'],
      definition: { type: 'boolean', description: 'Deprecated; true exactly when `type` is `MAJOR`.', deprecated: true, example: false },
      value: (order) => (order.type === undefined ? undefined : order.type === 'MAJOR'),
    }),
    visibleToField('OrderInput'),
    visibleToField('OrderUpdate'),
  ],
};

export default change;
