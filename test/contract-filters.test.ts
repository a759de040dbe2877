import { expect } from 'chai';
import { resolveRef } from './support/contract-refs';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { harness } from './support/harness';
import { newOrg, TestOrg } from './support/client';
import { loadContract } from '../src/http/contract';
import { demoListPath } from './support/demo-paths';
import { loadDemoData } from '../seeds/demo';
import type { ResourceDef } from '../src/db/resource';

/**
 * The filter allowlist is the contract: every `filter` field and `orderBy` value a list operation
 * of the document accepts is one the service can apply (src/db/list.ts answers 400 for a field
 * without a column). Every list is asked with each of them, on the demo organization.
 */
describe('contract: every accepted filter and orderBy has a column', function () {
  this.timeout(300_000);
  const doc = loadContract();
  const resolve = (o: any): any => resolveRef(doc, o);
  let org: TestOrg;
  const values: Record<string, string> = {};

  before(async () => {
    org = await newOrg();
    await loadDemoData(harness().db, org.id);
    const db = harness().db;
    // A live (not soft-deleted) object of each kind, the same one on every run.
    const first = async (table: string) => {
      const q = db(table).where({ organization_id: org.id }).orderBy('id');
      if (await db.schema.hasColumn(table, 'deleted_at')) q.whereNull('deleted_at');
      return String((await q.first('id'))?.id ?? 'missing');
    };
    const phase = await db('phases as p')
      .join('jobs as j', 'j.id', 'p.job_id')
      .where({ 'p.organization_id': org.id })
      .whereNull('p.deleted_at')
      .orderBy('p.id')
      .first('p.id', 'p.job_id');
    values.job = phase ? String(phase.job_id) : await first('jobs');
    values.phase = phase ? String(phase.id) : 'missing';
    values.order = await first('orders');
    values.bom = await first('bills_of_materials');
    values.requisition = await first('requisitions');
    values.warehouseRequest = await first('warehouse_requests');
    values.delivery = await first('delivery_receipts');
    values.invoice = await first('invoices');
  });

  /** A concrete path for a list's template, from the demo organization's objects. */
  function concrete(path: string): string {
    return demoListPath(path, values);
  }

  /** A value the schema accepts (the list may well be empty for it). */
  function sample(schema: any): string {
    const s = resolve(schema);
    if (s.type === 'array') return sample(s.items);
    if (s.enum) return String(s.enum[0]);
    if (s.oneOf || s.anyOf) return sample((s.oneOf ?? s.anyOf)[0]);
    if (s.format === 'date-time') return '2026-01-01T00:00:00.000Z';
    if (s.format === 'date') return '2026-01-01';
    if (s.format === 'uuid') return '7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42';
    if (s.type === 'integer' || s.type === 'number') return String(s.minimum ?? 1);
    if (s.type === 'boolean') return 'true';
    return 'x';
  }

  const lists = Object.entries(doc.paths).flatMap(([path, item]) => {
    const op = (item as any).get;
    const parameters = ((op?.parameters ?? []) as any[]).map(resolve);
    const filter = parameters.find((p) => p.name === 'filter');
    const orderBy = parameters.find((p) => p.name === 'orderBy');
    return filter || orderBy ? [{ path, filter, orderBy }] : [];
  });

  it('finds the list operations', () => expect(lists.length).to.be.above(20));

  it('answers 200 to every filter field and orderBy value of every list', async () => {
    const refused: string[] = [];
    let asked = 0;
    for (const { path, filter, orderBy } of lists) {
      const base = concrete(path);
      const queries = [
        ...Object.entries(resolve(filter?.schema)?.properties ?? {}).map(([key, schema]) => `filter[${key}]=${encodeURIComponent(sample(schema))}`),
        ...((resolve(orderBy?.schema)?.enum ?? []) as string[]).map((v) => `orderBy=${v}`),
      ];
      for (const q of queries) {
        // Every list and filter the contract document names, read from it at run time.
        const res = await org.api.unchecked.get(`${base}?${q}&limit=1`);
        asked++;
        if (res.status !== 200) refused.push(`${path}?${q}: ${res.status} ${JSON.stringify(res.body?.errors?.[0]?.message ?? res.body)}`);
      }
    }
    expect(refused, refused.join('\n')).to.deep.equal([]);
    expect(asked).to.be.above(500);
  });
});

/**
 * The other direction: every entry of every resource's column map (src/resources/<r>/*.ts, e.g. queries.ts,
 * which is also the service's filter and orderBy allowlist) is a field of the schema the document
 * gives that resource, so the service never filters, sorts or answers on a field the contract does
 * not know. Every exported column map must be named here with its schema: a new one fails the test
 * until it is.
 */
describe('contract: every column-map entry is a field of its schema', () => {
  const SCHEMA_OF: Record<string, string> = {
    'bills-of-materials.billsOfMaterials': 'BillOfMaterials',
    'bills-of-materials.bomItems': 'BillOfMaterialsItem',
    'change-orders.changeOrders': 'ChangeOrder',
    'cost-categories.costCategories': 'CostCategory',
    'delivery-receipts.deliveryReceipts': 'DeliveryReceipt',
    'delivery-receipts.deliveryReceiptItems': 'DeliveryReceiptItem',
    'groups.groups': 'Group',
    'invoice-items.invoiceItems': 'InvoiceItem',
    'invoice-items.bulkInvoiceItems': 'BulkInvoiceItem',
    'invoices.invoices': 'Invoice',
    'orders.items': 'Item',
    'orders.bulkItems': 'BulkItem',
    'jobs.jobs': 'Job',
    'jobs.jobsWithCounter': 'JobWithCounter',
    'locations.locations': 'Location',
    'notifications.notifications': 'Notification',
    'orders.orders': 'Order',
    'orders.orderRows': 'Order',
    'phases.phases': 'Phase',
    'releases.releases': 'Release',
    'requisitions.requisitions': 'Requisition',
    'requisitions.requisitionItems': 'RequisitionItem',
    'tags.tags': 'Tag',
    'tax-codes.taxCodes': 'TaxCode',
    'units-of-measure.unitsOfMeasure': 'UnitOfMeasure',
    'users.users': 'User',
    'vendors.vendors': 'Vendor',
    'warehouse-requests.warehouseRequests': 'WarehouseRequest',
    'warehouse-requests.warehouseRequestItems': 'WarehouseRequestItem',
  };
  const doc = loadContract();
  const schema = (name: string): any => doc.components!.schemas![name];
  /** A schema's properties, through $ref and allOf. */
  const fields = (s: any): Set<string> => {
    if (s?.$ref) return fields(schema(s.$ref.split('/').pop()));
    const own = Object.keys(s?.properties ?? {});
    return new Set([...own, ...((s?.allOf ?? []) as any[]).flatMap((part) => [...fields(part)])]);
  };

  it('names every exported column map and finds each of its fields in the schema', async () => {
    const dir = join(__dirname, '..', 'src', 'resources');
    const found = new Set<string>();
    const problems: string[] = [];
    const modules = readdirSync(dir).flatMap((resource) =>
      existsSync(join(dir, resource)) && !resource.endsWith('.js') && !resource.endsWith('.map')
        ? readdirSync(join(dir, resource))
            .filter((f) => f.endsWith('.js'))
            .map((f) => ({ resource, file: join(dir, resource, f) }))
        : [],
    );
    for (const { resource, file } of modules) {
      const mod = await import(pathToFileURL(file).href);
      for (const [name, value] of Object.entries(mod)) {
        const def = value as Partial<ResourceDef>;
        if (!def || typeof def !== 'object' || typeof def.table !== 'string' || !def.columns) continue;
        const key = `${resource}.${name}`;
        if (found.has(key)) continue;
        found.add(key);
        const schemaName = SCHEMA_OF[key];
        if (!schemaName) {
          problems.push(`${key}: no schema named for it in this test`);
          continue;
        }
        expect(schema(schemaName), schemaName).to.be.an('object');
        const documented = fields(schema(schemaName));
        for (const field of Object.keys(def.columns)) if (!documented.has(field)) problems.push(`${key}.${field}: not a field of ${schemaName}`);
      }
    }
    expect(problems, problems.join('\n')).to.deep.equal([]);
    expect([...found].sort()).to.deep.equal(Object.keys(SCHEMA_OF).sort());
  });
});
