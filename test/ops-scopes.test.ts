import { expect } from 'chai';
import { harness } from './support/harness';
import { ApiResponse, Client, anonymous, expectStatus, newOrg, problemOf, type TestOrg } from './support/client';
import { createClient, rotateApiKey } from '../src/admin/provision';
import { contractOperations } from '../src/http/contract';
import { itDirect, PRISM } from './support/proxy';

const form = (fields: Record<string, string>) => ({ raw: new URLSearchParams(fields).toString(), contentType: 'application/x-www-form-urlencoded' });
const taxCode = (code: string) => ({ code, description: `Tax ${code}`, taxPercent: 0.05 });

async function token(clientId: string, clientSecret: string, scope?: string) {
  return anonymous().post(
    '/oauth2/token',
    undefined,
    form({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, ...(scope === undefined ? {} : { scope }) }),
  );
}

function expectInsufficientScope(res: ApiResponse) {
  const p = problemOf(res, 403);
  expect(res.headers.get('www-authenticate')).to.equal('Bearer error="insufficient_scope", scope="write"');
  expect(p.type).to.equal('/problems/insufficient-scope');
  expect(p.detail).to.match(/write/);
}

describe('ops: least privilege (credential scopes)', () => {
  let org: TestOrg;
  before(async () => {
    org = await newOrg();
  });

  it('existing credentials keep full access; a token says so in `scope` (RFC 6749 5.1)', async () => {
    expectStatus(await org.api.post('/tax-codes', taxCode('FULL-1')), 201);
    const res = expectStatus(await token(org.clientId, org.clientSecret), 200);
    expect(res.body.scope).to.equal('read write');
    expectStatus(await new Client(res.body.access_token).post('/tax-codes', taxCode('FULL-2')), 201);
  });

  it('a read-only OAuth client reads, and a write is 403 insufficient_scope (RFC 6750)', async () => {
    const client = await createClient(harness().db, org.id, ['read']);
    const res = expectStatus(await token(client.clientId, client.clientSecret), 200);
    expect(res.body.scope).to.equal('read');
    const api = new Client(res.body.access_token);
    expectStatus(await api.get('/tax-codes'), 200);
    expectInsufficientScope(await api.post('/tax-codes', taxCode('RO-1')));
    expect(await harness().db('tax_codes').where({ organization_id: org.id, code: 'RO-1' }).first()).to.equal(undefined);
  });

  it('a full client may ask for a narrower token; asking for more than it has is invalid_scope', async () => {
    const narrow = expectStatus(await token(org.clientId, org.clientSecret, 'read'), 200);
    expect(narrow.body.scope).to.equal('read');
    expectInsufficientScope(await new Client(narrow.body.access_token).post('/tax-codes', taxCode('RO-2')));
    const client = await createClient(harness().db, org.id, ['read']);
    const refused = await token(client.clientId, client.clientSecret, 'read write');
    expect(refused.status).to.equal(400);
    expect(expectStatus(refused, 400).body.error).to.equal('invalid_scope');
  });

  it('a read-only API key reads, and a write is 403 insufficient_scope', async () => {
    const other = await newOrg();
    const { apiKey } = await rotateApiKey(harness().db, other.id, ['read']);
    const api = new Client(apiKey);
    expectStatus(await api.get('/tax-codes'), 200);
    expectInsufficientScope(await api.post('/tax-codes', taxCode('RO-3')));
    // twice: the second answer comes from the key cache, which keeps the scopes
    expectStatus(await api.get('/tax-codes'), 200);
    expectInsufficientScope(await api.post('/tax-codes', taxCode('RO-3')));
  });

  itDirect(
    'a write the credential may not make is 403 before its body is read: an invalid or malformed body tells it nothing',
    PRISM.invalidRequest('an invalid body'),
    async () => {
      const other = await newOrg();
      const { apiKey } = await rotateApiKey(harness().db, other.id, ['read']);
      const api = new Client(apiKey);
      expectInsufficientScope(await api.unchecked.post('/tax-codes', { code: 7, unknownField: true }));
      expectInsufficientScope(await api.unchecked.post('/tax-codes', undefined, { raw: '{"code": ', contentType: 'application/json' }));
      expectInsufficientScope(await api.unchecked.patch('/tax-codes/NOPE', { taxPercent: 'lots' }));
      // A full credential gets the validation answer for the same body.
      expect((await org.api.unchecked.post('/tax-codes', { code: 7, unknownField: true })).status).to.equal(400);
    },
  );

  it('every operation documents its scope: read for GET, write otherwise, with the 403 on writes', async () => {
    for (const { method, path, operation } of contractOperations()) {
      if (Array.isArray(operation.security) && operation.security.length === 0) continue;
      const oauth = operation.security!.find((r: Record<string, string[]>) => 'oauth2' in r);
      expect(oauth?.oauth2, `${method} ${path}`).to.deep.equal([method === 'GET' ? 'read' : 'write']);
      if (method !== 'GET') expect(operation.responses, `${method} ${path}`).to.have.property('403');
    }
  });
});
