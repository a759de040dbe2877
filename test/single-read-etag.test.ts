import { expect } from 'chai';
import canonicalize from 'canonicalize';
import { createHash } from 'node:crypto';
import { expectStatus, newOrg } from './support/client';
import { harness } from './support/harness';
import { oneByIdOrCodeWithDigest } from '../src/db/resource';
import { jobs } from '../src/resources/jobs/queries';
import '../src/resources/index';

/*
 * Issue 40: a single read takes its entity tag from the object's stored state (feed_objects) when
 * that state equals the object as read now, in the same statement, instead of parsing, putting in
 * RFC 8785 form and hashing the object on every read. The tag must stay the object's digest and
 * change exactly when the read changes, also when the state is not current yet (a change made by
 * SQL that the capture has not appended): then it is computed from the read, as before. The digests
 * here are computed from the reads (canonicalize, SHA-256), never with the service's functions.
 */
const digestOf = (body: unknown) => createHash('sha256').update(canonicalize(body)!, 'utf8').digest('hex');

describe('the single read’s entity tag from the object’s stored state', function () {
  this.timeout(60_000);

  it('is the digest of the read: from the state while it is current, computed while it is not, and from the state again once it is', async () => {
    const org = await newOrg();
    const code = `ETAG-${process.pid}`;
    expectStatus(await org.api.post('/jobs', { code, name: 'Tag source' }), 201);
    const db = harness().db;

    // The state was written with the create: the statement finds it equal and answers its digest.
    const fresh = await oneByIdOrCodeWithDigest(db, jobs, org.id, code);
    expect(fresh!.digest, 'a digest from the current state').to.equal(digestOf(JSON.parse(fresh!.json)));
    const first = expectStatus(await org.api.get(`/jobs/${code}`), 200);
    expect(first.headers.get('etag')).to.equal(`"${digestOf(first.body)}"`);

    // An operator's SQL change: the read changes at once, the state only once the capture appends it.
    await db('jobs').where({ organization_id: org.id, code }).update({ name: 'Renamed by SQL' });
    const stale = await oneByIdOrCodeWithDigest(db, jobs, org.id, code);
    expect(JSON.parse(stale!.json).name).to.equal('Renamed by SQL');
    expect(stale!.digest, 'no digest from a state that is not current').to.equal(undefined);
    const second = expectStatus(await org.api.get(`/jobs/${code}`), 200);
    expect(second.body.name).to.equal('Renamed by SQL');
    expect(second.headers.get('etag')).to.equal(`"${digestOf(second.body)}"`);
    expect(second.headers.get('etag')).to.not.equal(first.headers.get('etag'));
    // The old tag no longer matches; the new one does.
    expectStatus(await org.api.get(`/jobs/${code}`, { headers: { 'If-None-Match': first.headers.get('etag')! } }), 200);
    expectStatus(await org.api.get(`/jobs/${code}`, { headers: { 'If-None-Match': second.headers.get('etag')! } }), 304);

    // The reconciliation read appends the captured change first: the state is current again.
    expectStatus(await org.api.get('/reconciliation/job'), 200);
    const current = await oneByIdOrCodeWithDigest(db, jobs, org.id, code);
    expect(current!.digest, 'a digest from the state brought up to date').to.equal(digestOf(second.body));
    const third = expectStatus(await org.api.get(`/jobs/${code}`), 200);
    expect(third.headers.get('etag')).to.equal(second.headers.get('etag'));
  });
});
