import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { harness } from './support/harness';
import { anonymous, Client, expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { createClient, deleteClient, rotateApiKey } from '../src/admin/provision';
import { itDirect, PRISM } from './support/proxy';
import { rawCall } from './support/raw-http';

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const FORM = 'application/x-www-form-urlencoded';

async function token(org: { clientId: string; clientSecret: string }) {
  const res = await anonymous().post('/oauth2/token', undefined, {
    raw: form({ grant_type: 'client_credentials', client_id: org.clientId, client_secret: org.clientSecret }),
    contentType: FORM,
  });
  return res;
}

describe('authentication', () => {
  let org: TestOrg;
  before(async () => {
    org = await newOrg();
  });

  describe('POST /oauth2/token', () => {
    it('issues a bearer token for client credentials in the body', async () => {
      const res = expectStatus(await token(org), 200);
      expect(res.headers.get('cache-control')).to.equal('no-store');
      expect(res.headers.get('pragma')).to.equal('no-cache');
      expect(res.headers.get('content-type')).to.match(/^application\/json/);
      expect(res.body).to.include({ token_type: 'bearer', expires_in: 3600 });
      const claims = jwt.decode(res.body.access_token) as { exp: number; iat: number };
      expect(claims.exp - claims.iat).to.equal(3600);
      expectStatus(await new Client(res.body.access_token).get('/tax-codes'), 200);
    });

    it('accepts HTTP Basic client authentication (RFC 6749 2.3.1)', async () => {
      const basic = Buffer.from(`${encodeURIComponent(org.clientId)}:${encodeURIComponent(org.clientSecret)}`).toString('base64');
      const res = await anonymous().post('/oauth2/token', undefined, {
        raw: form({ grant_type: 'client_credentials' }),
        contentType: FORM,
        headers: { Authorization: `Basic ${basic}` },
      });
      expectStatus(res, 200);
    });

    it('rejects a wrong secret with invalid_client, 401 and a Basic challenge when Basic was used', async () => {
      const body = await anonymous().post('/oauth2/token', undefined, {
        raw: form({ grant_type: 'client_credentials', client_id: org.clientId, client_secret: 'cs_wrong' }),
        contentType: FORM,
      });
      expect(body.status).to.equal(401);
      expect(body.body).to.include({ error: 'invalid_client' });
      expect(body.headers.get('www-authenticate')).to.equal(null);
      const basic = Buffer.from(`${org.clientId}:nope`).toString('base64');
      const viaBasic = await anonymous().post('/oauth2/token', undefined, {
        raw: form({ grant_type: 'client_credentials' }),
        contentType: FORM,
        headers: { Authorization: `Basic ${basic}` },
      });
      expect(viaBasic.status).to.equal(401);
      expect(viaBasic.headers.get('www-authenticate')).to.match(/^Basic /);
    });

    it('rejects an unknown client, a missing or repeated grant type and another grant type per RFC 6749 5.2', async () => {
      const unknown = await anonymous().post('/oauth2/token', undefined, {
        raw: form({ grant_type: 'client_credentials', client_id: 'cl_nobody', client_secret: 'x' }),
        contentType: FORM,
      });
      expect(expectStatus(unknown, 401).body.error).to.equal('invalid_client');
      const noGrant = await anonymous().post('/oauth2/token', undefined, {
        raw: form({ client_id: org.clientId, client_secret: org.clientSecret }),
        contentType: FORM,
      });
      expect(expectStatus(noGrant, 400).body.error).to.equal('invalid_request');
      const password = await anonymous().post('/oauth2/token', undefined, {
        raw: form({ grant_type: 'password', username: 'a', password: 'b' }),
        contentType: FORM,
      });
      expect(expectStatus(password, 400).body.error).to.equal('unsupported_grant_type');
      const twice = await anonymous().post('/oauth2/token', undefined, {
        raw: 'grant_type=client_credentials&grant_type=client_credentials',
        contentType: FORM,
      });
      expect(expectStatus(twice, 400).body.error).to.equal('invalid_request');
      const noCreds = await anonymous().post('/oauth2/token', undefined, { raw: form({ grant_type: 'client_credentials' }), contentType: FORM });
      expect(expectStatus(noCreds, 401).body.error).to.equal('invalid_client');
    });

    itDirect('rejects a JSON body with invalid_request (RFC 6749 5.2)', PRISM.invalidRequest('a JSON body where the contract takes a form'), async () => {
      const json = await anonymous().unchecked.post('/oauth2/token', { grant_type: 'client_credentials' });
      expect([json.status, json.body.error]).to.deep.equal([400, 'invalid_request']);
    });

    it('never returns the secret or a stack trace', async () => {
      const res = await anonymous().post('/oauth2/token', undefined, {
        raw: form({ grant_type: 'client_credentials', client_id: org.clientId, client_secret: org.clientSecret + 'x' }),
        contentType: FORM,
      });
      expect(res.text).not.to.include(org.clientSecret);
      expect(res.text).not.to.match(/at .*\.js:\d+/);
    });

    itDirect(
      'answers every malformed token request in the OAuth format (400 invalid_request), whatever refused it',
      PRISM.invalidRequest('a JSON body, a latin1 form and a NUL byte'),
      async () => {
        const cases: { raw: string; contentType: string }[] = [
          // A NUL byte: refused by the input guard before the handler.
          { raw: form({ grant_type: 'client_credentials', client_id: 'x\u0000', client_secret: 'y' }), contentType: FORM },
          // A charset the body parser does not read.
          { raw: 'grant_type=client_credentials', contentType: `${FORM}; charset=latin1` },
          // Malformed JSON: refused by the body parser.
          { raw: '{"grant_type":', contentType: 'application/json' },
        ];
        for (const c of cases) {
          const res = await anonymous().unchecked.post('/oauth2/token', undefined, c);
          expect(res.status, `${c.contentType} ${c.raw}: ${res.text}`).to.equal(400);
          expect(res.headers.get('content-type')).to.match(/^application\/json/);
          expect(res.headers.get('cache-control')).to.equal('no-store');
          expect(res.body.error).to.equal('invalid_request');
          expect(res.body.error_description).to.be.a('string').and.have.length.above(0);
        }
      },
    );
    itDirect(
      'names what is wrong with a malformed token request: no body, a multipart body, parameters in the query, a charset other than UTF-8, a missing grant_type',
      PRISM.invalidRequest('token requests without a form body'),
      async () => {
        const good = form({ grant_type: 'client_credentials', client_id: org.clientId, client_secret: org.clientSecret });
        const describe = async (path: string, init: { raw?: string; contentType?: string }) => {
          const res = await anonymous().unchecked.post(path, undefined, init);
          expect([res.status, res.body.error], res.text).to.deep.equal([400, 'invalid_request']);
          return res.body.error_description as string;
        };
        expect(await describe('/oauth2/token', {})).to.match(/form body/);
        expect(await describe(`/oauth2/token?${good}`, {})).to.match(/not in the query string/);
        const multipart = `--b\r\nContent-Disposition: form-data; name="grant_type"\r\n\r\nclient_credentials\r\n--b--\r\n`;
        expect(await describe('/oauth2/token', { raw: multipart, contentType: 'multipart/form-data; boundary=b' })).to.match(
          /must be application\/x-www-form-urlencoded/,
        );
        // Well-formed credentials in ISO-8859-1: refused all the same (RFC 6749 appendix B: UTF-8).
        expect(await describe('/oauth2/token', { raw: good, contentType: `${FORM}; charset=iso-8859-1` })).to.match(/UTF-8/);
        expect(await describe('/oauth2/token', { raw: form({ client_id: org.clientId, client_secret: org.clientSecret }), contentType: FORM })).to.equal(
          'grant_type is required.',
        );
        // charset=utf-8, in any spelling, is the form's own.
        const ok = await anonymous().post('/oauth2/token', undefined, { raw: good, contentType: `${FORM}; charset="UTF-8"` } as any);
        expect(ok.status, ok.text).to.equal(200);
      },
    );
  });

  describe('bearer credentials', () => {
    itDirect('requires a credential: 401, WWW-Authenticate: Bearer, problem body', PRISM.noBearer('no Authorization header'), async () => {
      const res = await anonymous().get('/tax-codes');
      problemOf(res, 401);
      expect(res.headers.get('www-authenticate')).to.equal('Bearer');
    });

    itDirect(
      'refuses two Authorization headers with a 400 invalid_request (RFC 6750 3.1), in either order, not the first one',
      PRISM.noBearer('two Authorization headers (Prism reads one)'),
      async () => {
        const second = await newOrg();
        for (const [a, b] of [
          [org.apiKey, second.apiKey],
          [second.apiKey, org.apiKey],
          [org.apiKey, org.apiKey],
        ]) {
          const res = await rawCall('GET', '/tax-codes', ['Authorization', `Bearer ${a}`, 'Authorization', `Bearer ${b}`]);
          expect(res.status, res.text).to.equal(400);
          expect(res.headers['content-type']).to.match(/^application\/problem\+json/);
          expect(res.body.errors[0]).to.include({ field: 'header.Authorization', rule: 'single' });
          expect(res.headers['www-authenticate']).to.match(/^Bearer error="invalid_request"/);
        }
        expect((await rawCall('GET', '/tax-codes', ['Authorization', `Bearer ${org.apiKey}`])).status).to.equal(200);
      },
    );

    it('rejects a malformed bearer token and an unknown key with error="invalid_token"', async () => {
      for (const header of ['Bearer a b', 'Bearer pk_unknown']) {
        const res = await anonymous().get('/tax-codes', { headers: { Authorization: header } });
        problemOf(res, 401);
        expect(res.headers.get('www-authenticate'), header).to.match(/^Bearer error="invalid_token"/);
      }
    });

    itDirect('rejects a header of another scheme or without a token', PRISM.noBearer('"Basic abc", "Bearer" and "Token <key>"'), async () => {
      for (const header of ['Basic abc', 'Bearer', `Token ${org.apiKey}`]) {
        const res = await anonymous().get('/tax-codes', { headers: { Authorization: header } });
        problemOf(res, 401);
        expect(res.headers.get('www-authenticate'), header).to.match(/^Bearer( error="invalid_token")?/);
      }
    });

    // Prism cannot express this rule: it matches /^Bearer\s.+$/ case-sensitively, while RFC 7235
    // makes the scheme name case-insensitive (and the contract's bearer scheme says so).
    itDirect(
      'accepts the scheme name in any case',
      PRISM.noBearer('"bearer <key>" and "BEARER <key>" (Prism matches the scheme name case-sensitively)'),
      async () => {
        expectStatus(await anonymous().get('/tax-codes', { headers: { Authorization: `bearer ${org.apiKey}` } }), 200);
        expectStatus(await anonymous().get('/tax-codes', { headers: { Authorization: `BEARER ${org.apiKey}` } }), 200);
      },
    );

    it('rejects an expired token and a token signed with another secret', async function () {
      const good = expectStatus(await token(org), 200).body.access_token;
      const claims = jwt.decode(good) as Record<string, unknown>;
      const { exp: _exp, iat: _iat, ...rest } = claims;
      const forged = jwt.sign(rest, 'another-secret', { expiresIn: 3600 });
      problemOf(await new Client(forged).get('/tax-codes'), 401);
      // Through API_BASE_URL the test needs the service's JWT_SECRET to sign an expired token.
      if (!harness().jwtSecret) return this.skip();
      const expired = jwt.sign({ ...rest, exp: Math.floor(Date.now() / 1000) - 10 }, harness().jwtSecret);
      const res = await new Client(expired).get('/tax-codes');
      expect(problemOf(res, 401).errors[0].message).to.match(/expired/);
      expect(res.headers.get('www-authenticate')).to.match(/invalid_token/);
    });

    it('deleting an OAuth client revokes its tokens immediately', async () => {
      const client = await createClient(harness().db, org.id);
      const t = expectStatus(await token(client), 200).body.access_token;
      expectStatus(await new Client(t).get('/tax-codes'), 200);
      await deleteClient(harness().db, client.clientId);
      const res = await new Client(t).get('/tax-codes');
      problemOf(res, 401);
      expect(res.headers.get('www-authenticate')).to.match(/invalid_token/);
      expect(expectStatus(await token(client), 401).body.error).to.equal('invalid_client');
    });

    it('rotating the API key invalidates the previous key at once; keys are stored only hashed', async () => {
      const other = await newOrg();
      expectStatus(await other.api.get('/tax-codes'), 200);
      const { apiKey } = await rotateApiKey(harness().db, other.id);
      problemOf(await other.api.get('/tax-codes'), 401);
      expectStatus(await new Client(apiKey).get('/tax-codes'), 200);
      const stored = await harness().db('api_keys').where({ organization_id: other.id });
      expect(JSON.stringify(stored)).not.to.include(apiKey);
      const clients = await harness().db('oauth_clients').where({ organization_id: other.id });
      expect(JSON.stringify(clients)).not.to.include(other.clientSecret);
    });

    // A read carries its credential check in its first statement (src/db/credential-check.ts):
    // every way a read can end must still refuse a credential revoked a moment before.
    it('a revoked key gets 401 on every kind of read, however the read ends', async () => {
      const other = await newOrg();
      const job = expectStatus(await other.api.post('/jobs', { code: 'J-9001', name: 'Harbor View Lofts' }), 201).body;
      // Known to the service (its owner is cached) before it is rotated.
      for (const path of ['/jobs', `/jobs/${job.code}`, '/jobs/J-0000', '/items?limit=1', '/items?limit=1&cursor=start'] as const)
        expect((await other.api.get(path)).status).to.be.oneOf([200, 404]);
      await rotateApiKey(harness().db, other.id);
      const reads = [
        '/jobs', // a page
        `/jobs/${job.code}`, // one row
        '/jobs/J-0000', // no row: 404 for a live key
        '/jobs?filter[nope]=1', // refused by validation: 400 for a live key (a key Prism lets through)
        '/items?limit=1&cursor=start',
        `/jobs/${job.code}/locations`,
      ] as const;
      for (const path of reads) {
        const res = await other.api.get(path);
        expect(problemOf(res, 401).errors[0].message, path).to.equal('The API key is invalid or has been revoked.');
      }
      // Writes check before they start.
      problemOf(await other.api.patch(`/jobs/${job.code}`, { name: 'Renamed' }), 401);
      const stored = await harness().db('jobs').where({ organization_id: other.id, code: job.code }).first('name');
      expect(stored.name).to.equal('Harbor View Lofts');
    });

    itDirect('HEAD is a read too: a revoked key gets 401', PRISM.outsideContract('HEAD'), async () => {
      const other = await newOrg();
      expectStatus(await other.api.get('/jobs'), 200);
      await rotateApiKey(harness().db, other.id);
      expect((await other.api.unchecked.request('HEAD', '/jobs')).status).to.equal(401);
    });

    it('a token whose client was deleted gets 401 on reads that end in 404 or 400 too', async () => {
      const client = await createClient(harness().db, org.id);
      const t = expectStatus(await token(client), 200).body.access_token;
      const api = new Client(t);
      expectStatus(await api.get('/jobs?limit=1'), 200);
      await deleteClient(harness().db, client.clientId);
      for (const path of ['/jobs?limit=1', '/jobs/J-0000', '/jobs?filter[nope]=1'] as const) {
        expect(problemOf(await api.get(path), 401).errors[0].message, path).to.equal('The access token has been revoked.');
      }
    });

    it('acts as a user of the organization', async () => {
      const t = expectStatus(await token(org), 200).body.access_token;
      const claims = jwt.decode(t) as { sub: string; org: string };
      expect(claims).to.include({ sub: org.userId, org: org.id });
    });
  });
});
