import { expect } from 'chai';
import { expectStatus, newOrg, TestOrg } from './support/client';
import { expectForeignLikeMissing, MISSING_ID } from './support/tenancy';

/**
 * Another organization's object is answered exactly like a missing one. The foundation's
 * resources are probed here; every other resource's test file probes its own operations with
 * expectForeignLikeMissing (test/support/tenancy.ts).
 */
interface Probe {
  name: string;
  /** Creates an object in `owner` and returns the path to reach it, and its method and body. */
  setup(owner: TestOrg): Promise<{ method: 'GET' | 'PATCH' | 'DELETE' | 'POST'; path: string; body?: unknown; missingPath: string }[]>;
}

const probes: Probe[] = [
  {
    name: 'tax codes',
    async setup(owner) {
      const t = expectStatus(await owner.api.post('/tax-codes', { code: 'TEN-1', description: 'x', taxPercent: 0.1 }), 201).body;
      const missing = `/tax-codes/${MISSING_ID}`;
      return [
        { method: 'GET', path: `/tax-codes/${t.id}`, missingPath: missing },
        { method: 'GET', path: '/tax-codes/TEN-1', missingPath: '/tax-codes/TEN-NONE' },
        { method: 'PATCH', path: `/tax-codes/${t.id}`, body: { description: 'stolen' }, missingPath: missing },
        { method: 'DELETE', path: `/tax-codes/${t.id}`, missingPath: missing },
      ];
    },
  },
  {
    name: 'units of measure',
    async setup(owner) {
      const u = expectStatus(await owner.api.post('/units-of-measure', { code: 'TEN-U', description: 'x' }), 201).body;
      const missing = `/units-of-measure/${MISSING_ID}`;
      return [
        { method: 'GET', path: `/units-of-measure/${u.id}`, missingPath: missing },
        { method: 'PATCH', path: `/units-of-measure/${u.id}`, body: { description: 'stolen' }, missingPath: missing },
      ];
    },
  },
];

describe('tenancy', () => {
  let owner: TestOrg;
  let intruder: TestOrg;
  before(async () => {
    owner = await newOrg();
    intruder = await newOrg();
  });

  for (const probe of probes) {
    it(`${probe.name}: a foreign object is answered exactly like a missing one`, async () => {
      for (const c of await probe.setup(owner)) {
        await expectForeignLikeMissing(intruder, c.method, c.path, c.missingPath, c.body);
        // And the owner still sees it untouched.
        if (c.method === 'PATCH') expect(expectStatus(await owner.api.unchecked.get(c.path), 200).body.description).to.equal('x');
      }
    });
  }

  it("lists only the caller organization's rows", async () => {
    expectStatus(await owner.api.post('/tax-codes', { code: 'ONLY-MINE', description: 'x', taxPercent: 0 }), 201);
    const theirs = expectStatus(await intruder.api.get('/tax-codes?filter[code]=ONLY-MINE'), 200).body;
    expect(theirs).to.deep.equal([]);
    // Codes are unique per organization, not globally.
    expectStatus(await intruder.api.post('/tax-codes', { code: 'ONLY-MINE', description: 'y', taxPercent: 0 }), 201);
  });
});
