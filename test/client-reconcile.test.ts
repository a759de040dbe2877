import { expect } from 'chai';
import { createClient, objectDigest, paginate, reconcile } from '../client/src/index.mjs';
import { harness } from './support/harness';
import { expectStatus, newOrg } from './support/client';
import { objectDigest as serviceDigest } from '../src/db/object-digest';

/**
 * reconcile() and objectDigest() (client/src/reconcile.mts, digest.mts) against the service's
 * GET /reconciliation: equal copies proven equal, one changed, one missing and one extra object
 * found by id, without downloading the objects.
 */
describe('client kit: reconcile and objectDigest', function () {
  this.timeout(60_000);

  it("objectDigest is the service's digest of an object (its entity tag and reconciliation digest)", async () => {
    const org = await newOrg();
    const created = expectStatus(await org.api.post('/vendors', { code: 'V-DIG', name: 'Ünïcode & "quotes" 1e21' }), 201).body;
    const read = await org.api.get(`/vendors/${created.id}`);
    expect(read.headers.get('etag')).to.equal(`"${objectDigest(read.body)}"`);
    const answer = expectStatus(await org.api.get('/reconciliation/vendor'), 200).body;
    const prefix = created.id.replace(/-/g, '').slice(0, 8);
    const deep = expectStatus(await org.api.get(`/reconciliation/vendor?prefix=${prefix}`), 200).body;
    expect(answer.count).to.equal(1);
    expect(deep.objects).to.deep.equal([{ id: created.id, digest: objectDigest(read.body) }]);
    for (const value of [{ b: 1, a: [1.5, -0, 1e21, 'x\u2028'], c: null }, [true, { z: 'é', y: 0.1 }]])
      expect(objectDigest(value)).to.equal(serviceDigest(value));
  });

  it('proves an equal copy equal, and finds one changed, one missing and one extra object', async () => {
    const org = await newOrg();
    expectStatus(await org.api.post('/vendors/batch', { inputs: Array.from({ length: 40 }, (_, i) => ({ code: `V-R${i}`, name: `Vendor ${i}` })) }), 200);
    const requests: string[] = [];
    const client = createClient({
      baseUrl: harness().baseUrl,
      apiKey: org.apiKey,
      fetch: (input, init) => {
        requests.push(new URL((input as Request).url).pathname);
        return fetch(input, init);
      },
    });
    const copy = new Map<string, { id: string; name: string }>();
    for await (const vendor of paginate(client, '/vendors')) copy.set(vendor.id, vendor);
    requests.length = 0;

    const same = await reconcile({ client, resource: 'vendor', local: copy.values() });
    expect(same).to.deep.include({ equal: true, missing: [], extra: [], different: [], requests: 1 });
    expect(same.asOf).to.be.a('string');
    // `{ id, digest }` pairs do as well as the objects.
    expect((await reconcile({ client, resource: 'vendor', local: [...copy.values()].map((v) => ({ id: v.id, digest: objectDigest(v) })) })).equal).to.equal(
      true,
    );

    const [changed, missing] = [...copy.keys()];
    copy.set(changed, { ...copy.get(changed)!, name: 'Changed here' });
    copy.delete(missing);
    const extra = '00000000-0000-4000-8000-000000000000';
    copy.set(extra, { id: extra, name: 'Only here' });
    requests.length = 0;
    const found = await reconcile({ client, resource: 'vendor', local: copy.values() });
    expect(found).to.deep.include({ equal: false, missing: [missing], extra: [extra], different: [changed] });
    // Only digests were read: GET /reconciliation, a handful of times (40 objects: the top answer lists them).
    expect(requests.every((p) => p === '/reconciliation/vendor')).to.equal(true);
    expect(found.requests).to.equal(requests.length);
    expect(found.requests).to.be.at.most(8);
  });
});
