import { expect } from 'chai';
import type { OpenAPIV3 } from 'openapi-types';
import { loadContract } from '../src/http/contract';
import { newOrg } from './support/client';

/**
 * The documented 409 examples of the resources whose codes are unique are what the service answers
 * (the mock serves them to partner teams): each object is created twice with the example's value,
 * and the second answer equals the example but for its requestId.
 */
describe('conflict examples: the service answers the documented 409 bodies', function () {
  this.timeout(60_000);
  const example = (name: string) => (loadContract().components!.responses![name] as OpenAPIV3.ResponseObject).content!['application/problem+json'].example;
  const cases: [response: string, path: string, body: Record<string, unknown>][] = [
    ['JobConflict', '/jobs', { code: 'J-1042', name: 'Mill Street Lofts' }],
    ['TaxCodeConflict', '/tax-codes', { code: 'TX-CA', description: 'California', taxPercent: 0.0725 }],
    ['UnitOfMeasureConflict', '/units-of-measure', { code: 'LF', description: 'Linear foot' }],
    ['GroupConflict', '/groups', { name: 'Northern California', code: 'NORCAL' }],
    ['VendorConflict', '/vendors', { code: 'V-GRAYBAR', name: 'Graybar' }],
    ['GlobalPhaseConflict', '/global-phases', { code: '03-300', description: 'Concrete' }],
    ['CostCategoryConflict', '/global-categories', { code: 'MAT', description: 'Materials' }],
  ];
  for (const [response, path, body] of cases) {
    it(`${response}: POST ${path} twice`, async () => {
      const org = await newOrg();
      // A row per documented conflict: the table's paths and bodies go unchecked.
      expect((await org.api.unchecked.post(path, body)).status).to.equal(201);
      const again = await org.api.unchecked.post(path, body);
      expect(again.status).to.equal(409);
      const { requestId, ...documented } = example(response);
      expect(requestId).to.be.a('string');
      expect({ ...again.body, requestId: undefined }).to.deep.equal({ ...documented, requestId: undefined });
    });
  }
});
