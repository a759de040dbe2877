import { batchProblem, checkBatchSize, checkElements } from '../../db/batch';
import { isUuid } from '../../db/columns';
import { badRequest, notFound } from '../../errors';
import { existsById } from '../../db/resource';
import { type Handlers, type Schema, okOrNotFound, orNotFound } from '../../http/handler';
import { requireJob } from '../jobs/lookup';
import { type Parent, plainHandlers } from '../crud-handlers';
import * as q from './queries';
import { BomItemInput, checkBomItem } from './rules';

const missingBom = (id: string) => notFound(`No bill of materials matches ${id}.`);
const missingItem = (id: string) => notFound(`No bill-of-materials item matches ${id}.`);
const parentBom: Parent = { def: q.billsOfMaterials, column: 'bi.bill_of_materials_id', missing: missingBom };

export const billOfMaterialsHandlers: Handlers<
  | 'getJobBillOfMaterials'
  | 'createJobBillOfMaterials'
  | 'listBillOfMaterialsItems'
  | 'createBillOfMaterialsItems'
  | 'updateBillOfMaterialsItem'
  | 'deleteBillOfMaterialsItem'
  | 'updateBillOfMaterialsItems'
> = {
  getJobBillOfMaterials: async ({ db, caller, params }) => {
    const jobId = await requireJob(db, caller.organizationId, params.jobIdOrCode);
    const bom = await q.getJobBom(db, caller.organizationId, jobId);
    if (!bom) throw notFound(`Job ${params.jobIdOrCode} has no bill of materials.`);
    return { status: 200, body: bom };
  },

  createJobBillOfMaterials: async ({ db, caller, params }) => {
    const jobId = await requireJob(db, caller.organizationId, params.jobIdOrCode);
    const { created, bom } = await q.ensureJobBom(db, caller.organizationId, jobId);
    return created ? { status: 201, body: bom } : { status: 200, body: bom };
  },

  listBillOfMaterialsItems: plainHandlers<Schema<'BillOfMaterialsItem'>>(q.bomItems).listByParent('billOfMaterialsId', parentBom, {
    orderBy: 'createdAt',
  }),

  createBillOfMaterialsItems: async ({ db, caller, params, body, rejected }) => {
    const inputs = body.billOfMaterialsItems as BomItemInput[];
    checkBatchSize(inputs);
    if (!(await existsById(db, q.billsOfMaterials, caller.organizationId, params.billOfMaterialsId))) throw missingBom(params.billOfMaterialsId);
    const { errors, accepted } = checkElements(inputs, rejected);
    accepted.forEach(({ input, position }) => checkBomItem(input, true).forEach((v) => errors.addViolation(position, v)));
    errors.throwIfAny();
    const created = await db.transaction((tx) => q.createItems(tx, caller.organizationId, params.billOfMaterialsId, inputs));
    return { status: 201, body: created };
  },

  updateBillOfMaterialsItem: async ({ db, caller, params, body }) => {
    const input = body.input as BomItemInput;
    const violations = checkBomItem(input, false);
    if (violations.length)
      throw badRequest(violations.map((v) => ({ field: `body.input.${v.field}`, rule: v.rule, message: `body.input.${v.field}: ${v.message}` })));
    const id = params.billOfMaterialsItemId;
    if (!isUuid(id)) throw missingItem(id);
    const updated = await db.transaction(async (tx) => {
      const current = orNotFound((await q.lockItems(tx, caller.organizationId, [id])).get(id), missingItem, id);
      await q.updateItems(tx, caller.organizationId, [{ current, input }]);
      return q.getItem(tx, caller.organizationId, id);
    });
    return { status: 200, body: updated! };
  },

  deleteBillOfMaterialsItem: ({ db, caller, params }) =>
    okOrNotFound(q.deleteItem(db, caller.organizationId, params.billOfMaterialsItemId), missingItem, params.billOfMaterialsItemId),

  updateBillOfMaterialsItems: async ({ db, caller, body, rejected }) => {
    const inputs = body.inputs;
    checkBatchSize(inputs);
    // A duplicate ID is a request-level error, raised before any element is examined (an element
    // the schema rejected counts too when its ID is a string).
    const seen = new Set<string>();
    for (const element of inputs) {
      const id: unknown = (element as { billOfMaterialsItemId?: unknown } | null)?.billOfMaterialsItemId;
      if (typeof id !== 'string') continue;
      if (seen.has(id)) throw batchProblem(`Invalid input, duplicate billOfMaterialsItemId ${id}`);
      seen.add(id);
    }
    const { errors, accepted } = checkElements(inputs, rejected);
    const updated = await db.transaction(async (tx) => {
      const found = await q.lockItems(tx, caller.organizationId, accepted.map(({ input }) => input.billOfMaterialsItemId).filter(isUuid));
      accepted.forEach(({ input: e, position }) => {
        if (!found.has(e.billOfMaterialsItemId)) errors.add(position, `billOfMaterialsItem ${e.billOfMaterialsItemId} not found`);
        checkBomItem(e.input as BomItemInput, false).forEach((v) => errors.addViolation(position, { ...v, field: `input.${v.field}` }));
      });
      // Past this point every element was accepted.
      errors.throwIfAny();
      const ids = inputs.map((e) => e.billOfMaterialsItemId);
      const changes = inputs.map((e) => ({ current: found.get(e.billOfMaterialsItemId)!, input: e.input as BomItemInput }));
      await q.updateItems(tx, caller.organizationId, changes);
      return q.itemsInOrder(tx, caller.organizationId, ids);
    });
    return { status: 200, body: updated };
  },
};
