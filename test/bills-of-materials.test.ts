import { expect } from 'chai';
import { expectStatus, newOrg, problemOf, TestOrg, type RequestBody } from './support/client';
import { expectForeignLikeMissing, MISSING_ID } from './support/tenancy';
import { makeJob } from './support/release-fixtures';
import { itDirect, PRISM } from './support/proxy';

interface BomItem {
  id: string;
  description: string;
  estimatedQuantity: number;
  unitPrice: number | null;
  unitOfMeasure: string | null;
  workBreakdownStructureValues: { structureType: string; value: string }[];
  deletedAt: string | null;
}

describe('bills of materials', () => {
  let org: TestOrg;
  let other: TestOrg;
  let bomId: string;
  let jobId: string;

  const create = async (items: RequestBody<'post', '/billOfMaterials/b/items'>['billOfMaterialsItems'], o = org, id = bomId) =>
    expectStatus(await o.api.post(`/billOfMaterials/${id}/items`, { billOfMaterialsItems: items }), 201).body as BomItem[];

  before(async () => {
    org = await newOrg();
    other = await newOrg();
    jobId = await makeJob(org, 'J-1042');
    bomId = expectStatus(await org.api.post('/jobs/J-1042/billOfMaterials'), 201).body.id;
  });

  describe('the job bill of materials', () => {
    it('is created once per job (201, then the same one with 200) and found by job id or code', async () => {
      const again = expectStatus(await org.api.post(`/jobs/${jobId}/billOfMaterials`), 200).body;
      expect(again).to.include({ id: bomId, jobId });
      expect(expectStatus(await org.api.get('/jobs/J-1042/billOfMaterials'), 200).body.id).to.equal(bomId);
    });

    it('is a 404 for a job without one, a missing job or a foreign job', async () => {
      await makeJob(org, 'J-2000');
      problemOf(await org.api.get('/jobs/J-2000/billOfMaterials'), 404);
      problemOf(await org.api.post('/jobs/J-NOPE/billOfMaterials'), 404);
      await expectForeignLikeMissing(other, 'GET', `/jobs/${jobId}/billOfMaterials`, `/jobs/${MISSING_ID}/billOfMaterials`);
      await expectForeignLikeMissing(other, 'POST', `/jobs/${jobId}/billOfMaterials`, `/jobs/${MISSING_ID}/billOfMaterials`);
    });
  });

  describe('items', () => {
    it('creates items in the order given, with unitOfMeasure defaulting to EA', async () => {
      const items = await create([
        {
          description: 'EMT conduit 3/4 in.',
          estimatedQuantity: 2400,
          unitOfMeasure: 'LF',
          unitPrice: 0.62,
          mpn: '101543',
          upc: '786776101547',
          workBreakdownStructureValues: [{ structureType: 'Floor', value: 'Level 2' }],
        },
        { description: 'Square box', estimatedQuantity: 0 },
      ]);
      expect(items[0]).to.include({
        description: 'EMT conduit 3/4 in.',
        estimatedQuantity: 2400,
        unitOfMeasure: 'LF',
        unitPrice: 0.62,
        mpn: '101543',
        upc: '786776101547',
        billOfMaterialsId: bomId,
        deletedAt: null,
      });
      expect(items[0].workBreakdownStructureValues).to.deep.equal([{ structureType: 'Floor', value: 'Level 2' }]);
      expect(items[1]).to.include({ description: 'Square box', estimatedQuantity: 0, unitOfMeasure: 'EA', unitPrice: null });
      expect(items[1].workBreakdownStructureValues).to.deep.equal([]);
    });

    itDirect(
      'rejects every invalid element with its position, and creates none',
      PRISM.invalidRequest('elements without estimatedQuantity or with negative numbers, an empty list'),
      async () => {
        const before = expectStatus(await org.api.get(`/billOfMaterials/${bomId}/items?limit=1000`), 200).body.length;
        const p = problemOf(
          await org.api.post(`/billOfMaterials/${bomId}/items`, {
            billOfMaterialsItems: [
              { description: 'ok', estimatedQuantity: 1 },
              { description: 'null', estimatedQuantity: 1.5 },
              { description: 'ok', estimatedQuantity: -1, unitPrice: -2 },
            ],
          }),
          400,
        );
        const lines = p.errors[0].message.split('\n');
        expect(lines).to.have.length(2);
        expect(lines[0])
          .to.match(/^Position 1: /)
          .and.include('estimatedQuantity')
          .and.include('description');
        expect(lines[1])
          .to.match(/^Position 2: /)
          .and.include('estimatedQuantity')
          .and.include('unitPrice');
        const missing = problemOf(await org.api.unchecked.post(`/billOfMaterials/${bomId}/items`, { billOfMaterialsItems: [{ description: 'no qty' }] }), 400);
        // A rule of the schema (estimatedQuantity required) is reported in the same format, with the others.
        expect(missing.errors).to.deep.equal([{ message: 'Position 0: estimatedQuantity: is required (rule required)' }]);
        const mixed = problemOf(
          await org.api.unchecked.post(`/billOfMaterials/${bomId}/items`, {
            billOfMaterialsItems: [
              { description: 'ok', estimatedQuantity: 1 },
              { description: 7, estimatedQuantity: 1 },
              { description: 'ok', estimatedQuantity: -1 },
              { description: 'ok', estimatedQuantity: 1, workBreakdownStructureValues: 'Level 2' },
            ],
          }),
          400,
        );
        expect(mixed.errors[0].message.split('\n')).to.deep.equal([
          'Position 1: description: must be a string (rule type)',
          'Position 2: estimatedQuantity: must be greater than or equal to 0 (rule minimum)',
          'Position 3: workBreakdownStructureValues: must be an array (rule type)',
        ]);
        expect(expectStatus(await org.api.get(`/billOfMaterials/${bomId}/items?limit=1000`), 200).body.length).to.equal(before);
        expect(problemOf(await org.api.post(`/billOfMaterials/${bomId}/items`, { billOfMaterialsItems: [] }), 400).errors[0].message).to.equal(
          'Invalid input, list cannot be empty',
        );
      },
    );

    it('stores estimatedQuantity and unitPrice as given (a million feet at 0.0575), up to 10^12, and reads them back exactly', async () => {
      const [item, other] = await create([
        { description: 'THHN 12 AWG, per foot', estimatedQuantity: 1000000, unitPrice: 0.0575 },
        { description: 'Ground rod', estimatedQuantity: 3 },
      ]);
      expect(item).to.include({ estimatedQuantity: 1000000, unitPrice: 0.0575 });
      const read = async (id: string) => expectStatus(await org.api.get(`/billOfMaterials/${bomId}/items?filter[id]=${id}`), 200).body[0] as BomItem;
      expect(await read(item.id)).to.include({ estimatedQuantity: 1000000, unitPrice: 0.0575 });
      const patched = expectStatus(await org.api.patch(`/billOfMaterialsItem/${item.id}`, { input: { estimatedQuantity: 1e12, unitPrice: 0.125 } }), 200).body;
      expect(patched).to.include({ estimatedQuantity: 1e12, unitPrice: 0.125 });
      const batched = expectStatus(
        await org.api.patch('/billOfMaterialsItems', {
          inputs: [
            { billOfMaterialsItemId: item.id, input: { estimatedQuantity: 2500000, unitPrice: 1234567.891 } },
            { billOfMaterialsItemId: other.id, input: { unitPrice: 1e12 } },
          ],
        }),
        200,
      ).body as BomItem[];
      expect(batched.map((i) => [i.estimatedQuantity, i.unitPrice])).to.deep.equal([
        [2500000, 1234567.891],
        [3, 1e12],
      ]);
      expect(await read(item.id)).to.include({ estimatedQuantity: 2500000, unitPrice: 1234567.891 });
    });

    it('bounds estimatedQuantity and unitPrice at 10^12: a 400 naming the field and the rule, by position in a batch, and saves none', async () => {
      const [item, other] = await create([
        { description: 'Bounded A', estimatedQuantity: 1, unitPrice: 2 },
        { description: 'Bounded B', estimatedQuantity: 1 },
      ]);
      for (const field of ['estimatedQuantity', 'unitPrice']) {
        const p = problemOf(await org.api.patch(`/billOfMaterialsItem/${item.id}`, { input: { [field]: 1e13 } }), 400);
        expect(p.errors.map((e) => [e.field, e.rule, e.message])).to.deep.equal([
          [`body.input.${field}`, 'maximum', `body.input.${field}: must be less than or equal to 1000000000000`],
        ]);
      }
      const before = expectStatus(await org.api.get(`/billOfMaterials/${bomId}/items?limit=1000`), 200).body.length;
      const created = problemOf(
        await org.api.post(`/billOfMaterials/${bomId}/items`, {
          billOfMaterialsItems: [
            { description: 'ok', estimatedQuantity: 1 },
            { description: 'too many', estimatedQuantity: 3e12 },
            { description: 'too dear', estimatedQuantity: 1, unitPrice: 1e15 },
          ],
        }),
        400,
      );
      expect(created.errors[0].message.split('\n')).to.deep.equal([
        'Position 1: estimatedQuantity: must be less than or equal to 1000000000000 (rule maximum)',
        'Position 2: unitPrice: must be less than or equal to 1000000000000 (rule maximum)',
      ]);
      expect(expectStatus(await org.api.get(`/billOfMaterials/${bomId}/items?limit=1000`), 200).body.length).to.equal(before);
      const batch = problemOf(
        await org.api.patch('/billOfMaterialsItems', {
          inputs: [
            { billOfMaterialsItemId: item.id, input: { description: 'fine' } },
            { billOfMaterialsItemId: other.id, input: { estimatedQuantity: 1e13, unitPrice: 1e13 } },
          ],
        }),
        400,
      );
      expect(batch.errors[0].message.split('\n')).to.deep.equal([
        'Position 1: input.estimatedQuantity: must be less than or equal to 1000000000000 (rule maximum); input.unitPrice: must be less than or equal to 1000000000000 (rule maximum)',
      ]);
      const unchanged = expectStatus(await org.api.get(`/billOfMaterials/${bomId}/items?filter[id]=${item.id}`), 200).body[0];
      expect(unchanged).to.include({ description: 'Bounded A', estimatedQuantity: 1, unitPrice: 2 });
    });

    it('lists with the allowed orderBy and filters, excluding deleted items', async () => {
      const own = await newOrg();
      await makeJob(own, 'J-7');
      const id = expectStatus(await own.api.post('/jobs/J-7/billOfMaterials'), 201).body.id;
      // Separate requests: items created in one request share their createdAt.
      const [a] = await create([{ description: 'Bravo', estimatedQuantity: 20, unitPrice: 5 }], own, id);
      const [b] = await create([{ description: 'Alpha', estimatedQuantity: 10, unitPrice: 7 }], own, id);
      const [c] = await create([{ description: 'Charlie', estimatedQuantity: 30 }], own, id);
      const names = async (q: string) =>
        (expectStatus(await own.api.get(`/billOfMaterials/${id}/items?${q}`), 200).body as BomItem[]).map((i) => i.description);
      expect(await names('')).to.deep.equal(['Bravo', 'Alpha', 'Charlie']);
      expect(await names('orderBy=description')).to.deep.equal(['Alpha', 'Bravo', 'Charlie']);
      expect(await names('orderBy=estimatedQuantity&direction=DESC')).to.deep.equal(['Charlie', 'Bravo', 'Alpha']);
      expect(await names('filter[unitPrice_gte]=6')).to.deep.equal(['Alpha']);
      expect(await names('filter[estimatedQuantity]=30')).to.deep.equal(['Charlie']);
      expect(await names(`filter[id_in]=${a.id},${c.id}&orderBy=id`)).to.have.members(['Bravo', 'Charlie']);
      expect(await names('filter[description_starts_with]=al')).to.deep.equal(['Alpha']);
      expectStatus(await own.api.delete(`/billOfMaterialsItem/${b.id}`), 200);
      expect(await names('')).to.deep.equal(['Bravo', 'Charlie']);
      problemOf(await own.api.get(`/billOfMaterials/${id}/items?filter[mpn]=x`), 400);
      await expectForeignLikeMissing(other, 'GET', `/billOfMaterials/${id}/items`, `/billOfMaterials/${MISSING_ID}/items`);
      await expectForeignLikeMissing(other, 'POST', `/billOfMaterials/${id}/items`, `/billOfMaterials/${MISSING_ID}/items`, {
        billOfMaterialsItems: [{ description: 'x', estimatedQuantity: 1 }],
      });
    });

    itDirect('rejects an orderBy the contract does not list', PRISM.invalidRequest('orderBy=mpn'), async () => {
      problemOf(await org.api.get(`/billOfMaterials/${bomId}/items?orderBy=mpn`), 400);
    });
  });

  describe('PATCH /billOfMaterialsItem/{billOfMaterialsItemId}', () => {
    let item: BomItem;
    before(async () => {
      [item] = await create([
        {
          description: 'THHN 12 AWG',
          estimatedQuantity: 5000,
          unitPrice: 0.21,
          workBreakdownStructureValues: [
            { structureType: 'Floor', value: 'Level 1' },
            { structureType: 'System', value: 'Power' },
          ],
        },
      ]);
    });

    it('changes the given fields only and merges WBS values by structureType', async () => {
      const res = expectStatus(
        await org.api.patch(`/billOfMaterialsItem/${item.id}`, {
          input: {
            estimatedQuantity: 5200,
            workBreakdownStructureValues: [
              { structureType: 'Floor', value: 'Level 2' },
              { structureType: 'Cost Code', value: '26-0519' },
            ],
          },
        }),
        200,
      ).body as BomItem;
      expect(res).to.include({ id: item.id, description: 'THHN 12 AWG', estimatedQuantity: 5200, unitPrice: 0.21 });
      expect(res.workBreakdownStructureValues).to.deep.equal([
        { structureType: 'Floor', value: 'Level 2' },
        { structureType: 'System', value: 'Power' },
        { structureType: 'Cost Code', value: '26-0519' },
      ]);
      const kept = expectStatus(await org.api.patch(`/billOfMaterialsItem/${item.id}`, { input: { unitPrice: null } }), 200).body as BomItem;
      expect(kept.unitPrice).to.equal(null);
      expect(kept.workBreakdownStructureValues).to.have.length(3);
    });

    it('removes every WBS value with null', async () => {
      const res = expectStatus(await org.api.patch(`/billOfMaterialsItem/${item.id}`, { input: { workBreakdownStructureValues: null } }), 200).body as BomItem;
      expect(res.workBreakdownStructureValues).to.deep.equal([]);
    });

    itDirect('names the field and the rule of a violation', PRISM.invalidRequest('a quantity that is a string, negative or fractional'), async () => {
      const check = async (input: object, field: string, rule: string) => {
        const p = problemOf(await org.api.patch(`/billOfMaterialsItem/${item.id}`, { input }), 400);
        expect(p.errors.map((e) => [e.field, e.rule])).to.deep.include([field, rule]);
      };
      await check({ estimatedQuantity: -1 }, 'body.input.estimatedQuantity', 'minimum');
      await check({ estimatedQuantity: 2.5 }, 'body.input.estimatedQuantity', 'integer');
      await check({ estimatedQuantity: 'ten' }, 'body.input.estimatedQuantity', 'type');
      await check({ unitPrice: -0.01 }, 'body.input.unitPrice', 'minimum');
      await check({ description: 'null' }, 'body.input.description', 'not');
      const unchanged = expectStatus(await org.api.get(`/billOfMaterials/${bomId}/items?filter[id]=${item.id}`), 200).body[0];
      expect(unchanged.estimatedQuantity).to.equal(5200);
    });

    it('is a 404 for a missing, deleted or foreign item', async () => {
      const [gone] = await create([{ description: 'to delete', estimatedQuantity: 1 }]);
      expectStatus(await org.api.delete(`/billOfMaterialsItem/${gone.id}`), 200);
      problemOf(await org.api.patch(`/billOfMaterialsItem/${gone.id}`, { input: { estimatedQuantity: 2 } }), 404);
      problemOf(await org.api.patch(`/billOfMaterialsItem/not-an-id`, { input: { estimatedQuantity: 2 } }), 404);
      await expectForeignLikeMissing(other, 'PATCH', `/billOfMaterialsItem/${item.id}`, `/billOfMaterialsItem/${MISSING_ID}`, {
        input: { estimatedQuantity: 2 },
      });
    });
  });

  describe('DELETE /billOfMaterialsItem/{billOfMaterialsItemId}', () => {
    it('returns the item with deletedAt and deletes its WBS values; a second delete is a 404', async () => {
      const [item] = await create([
        { description: 'Delete me', estimatedQuantity: 3, workBreakdownStructureValues: [{ structureType: 'Phase', value: 'Rough-in' }] },
      ]);
      const deleted = expectStatus(await org.api.delete(`/billOfMaterialsItem/${item.id}`), 200).body as BomItem;
      expect(deleted.id).to.equal(item.id);
      expect(deleted.deletedAt).to.match(/Z$/);
      expect(deleted.workBreakdownStructureValues).to.deep.equal([]);
      problemOf(await org.api.delete(`/billOfMaterialsItem/${item.id}`), 404);
      const [again] = await create([{ description: 'Foreign check', estimatedQuantity: 1 }]);
      await expectForeignLikeMissing(other, 'DELETE', `/billOfMaterialsItem/${again.id}`, `/billOfMaterialsItem/${MISSING_ID}`);
    });
  });

  describe('PATCH /billOfMaterialsItems (batch)', () => {
    let items: BomItem[];
    beforeEach(async () => {
      items = await create([
        { description: 'Batch A', estimatedQuantity: 1, workBreakdownStructureValues: [{ structureType: 'Floor', value: 'L1' }] },
        { description: 'Batch B', estimatedQuantity: 2 },
        { description: 'Batch C', estimatedQuantity: 3 },
      ]);
    });
    const patch = (inputs: RequestBody<'patch', '/billOfMaterialsItems'>['inputs']) => org.api.patch('/billOfMaterialsItems', { inputs });

    it('updates every element in one go and returns them in input order', async () => {
      const res = expectStatus(
        await patch([
          { billOfMaterialsItemId: items[1].id, input: { estimatedQuantity: 20, description: 'Batch B2' } },
          { billOfMaterialsItemId: items[0].id, input: { workBreakdownStructureValues: [{ structureType: 'System', value: 'Power' }] } },
        ]),
        200,
      ).body as BomItem[];
      expect(res.map((i) => i.id)).to.deep.equal([items[1].id, items[0].id]);
      expect(res[0]).to.include({ estimatedQuantity: 20, description: 'Batch B2' });
      expect(res[1].workBreakdownStructureValues).to.deep.equal([
        { structureType: 'Floor', value: 'L1' },
        { structureType: 'System', value: 'Power' },
      ]);
    });

    it('reports every rejected element in one 400, one line per position, and saves none', async () => {
      const p = problemOf(
        await patch([
          { billOfMaterialsItemId: items[0].id, input: { estimatedQuantity: 100 } },
          { billOfMaterialsItemId: MISSING_ID, input: { estimatedQuantity: 1 } },
          { billOfMaterialsItemId: items[1].id, input: { estimatedQuantity: 1.5 } },
          { billOfMaterialsItemId: items[2].id, input: { unitPrice: -1, description: 'null' } },
        ]),
        400,
      );
      expect(p.errors).to.have.length(1);
      const lines = p.errors[0].message.split('\n');
      expect(lines).to.have.length(3);
      expect(lines[0])
        .to.match(/^Position 1: /)
        .and.include(MISSING_ID);
      expect(lines[1]).to.match(/^Position 2: .*estimatedQuantity/);
      expect(lines[2]).to.match(/^Position 3: .*unitPrice.*description/);
      const list = expectStatus(await org.api.get(`/billOfMaterials/${bomId}/items?filter[id]=${items[0].id}`), 200).body;
      expect(list[0].estimatedQuantity).to.equal(1);
    });

    itDirect(
      'names the elements the schema rejects in the same 400 as missing items and broken field rules',
      PRISM.invalidRequest('a numeric description, an unknown property, an element without input'),
      async () => {
        const p = problemOf(
          await org.api.unchecked.patch('/billOfMaterialsItems', {
            inputs: [
              { billOfMaterialsItemId: items[0].id, input: { description: 5 } },
              { billOfMaterialsItemId: MISSING_ID, input: { estimatedQuantity: 1 } },
              { billOfMaterialsItemId: items[1].id, input: { estimatedQuantity: 2, colour: 'red' } },
              { billOfMaterialsItemId: 'no input' },
              { billOfMaterialsItemId: items[2].id, input: { unitPrice: -1 } },
            ],
          }),
          400,
        );
        expect(p.errors).to.have.length(1);
        expect(p.errors[0].message.split('\n')).to.deep.equal([
          'Position 0: input.description: must be a string (rule type)',
          `Position 1: billOfMaterialsItem ${MISSING_ID} not found`,
          'Position 2: input.colour: unknown property colour (rule additionalProperties)',
          'Position 3: input: is required (rule required)',
          'Position 4: input.unitPrice: must be greater than or equal to 0 (rule minimum)',
        ]);
        const list = expectStatus(await org.api.get(`/billOfMaterials/${bomId}/items?filter[id]=${items[0].id}`), 200).body;
        expect(list[0].description).to.equal('Batch A');
      },
    );

    it('rejects a deleted or foreign item by position', async () => {
      expectStatus(await org.api.delete(`/billOfMaterialsItem/${items[2].id}`), 200);
      const code = `J-F-${Date.now()}`;
      await makeJob(other, code);
      const otherBom = expectStatus(await other.api.post(`/jobs/${code}/billOfMaterials`), 201).body.id;
      const [{ id: foreign }] = await create([{ description: 'Foreign', estimatedQuantity: 1 }], other, otherBom);
      const p = problemOf(
        await patch([
          { billOfMaterialsItemId: items[2].id, input: { estimatedQuantity: 5 } },
          { billOfMaterialsItemId: foreign, input: { estimatedQuantity: 5 } },
        ]),
        400,
      );
      expect(p.errors[0].message.split('\n').map((l) => l.slice(0, 11))).to.deep.equal(['Position 0:', 'Position 1:']);
    });

    it('uses the exact request-level messages: empty, more than 1000, duplicate ids', async () => {
      expect(problemOf(await patch([]), 400).errors[0].message).to.equal('Invalid input, list cannot be empty');
      const many = Array.from({ length: 1001 }, () => ({ billOfMaterialsItemId: items[0].id, input: { estimatedQuantity: 1 } }));
      expect(problemOf(await patch(many), 400).errors[0].message).to.equal('Invalid input, list cannot be greater than 1000');
      const dup = problemOf(
        await patch([
          { billOfMaterialsItemId: items[0].id, input: { estimatedQuantity: 1.5 } },
          { billOfMaterialsItemId: items[0].id, input: { estimatedQuantity: 2 } },
        ]),
        400,
      );
      expect(dup.errors[0].message).to.equal(`Invalid input, duplicate billOfMaterialsItemId ${items[0].id}`);
    });
  });
});
