import { expect } from 'chai';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../../src/paths';

/** scripts/breaking-changes.mjs, as CI runs it on the previous commit's contract and this one's. */
describe('the breaking-change check of the contract', () => {
  let breakingChanges: (before: unknown, after: unknown) => string[];
  let versionBreaks: (before: string, after: string, now?: number) => string[];
  before(async () => {
    ({ breakingChanges, versionBreaks } = await import(pathToFileURL(join(ROOT, 'scripts', 'breaking-changes.mjs')).href));
  });

  const doc = () => ({
    openapi: '3.0.3',
    paths: {
      '/jobs': {
        get: {
          parameters: [{ $ref: '#/components/parameters/Limit' }, { name: 'q', in: 'query', schema: { type: 'string' } }],
          responses: { '200': { content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Job' } } } } } },
        },
        post: {
          requestBody: {
            content: {
              'application/json': { schema: { type: 'object', required: ['code'], properties: { code: { type: 'string' }, name: { type: 'string' } } } },
            },
          },
          responses: { '201': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Job' } } } } },
        },
      },
      '/jobs/{id}': { get: { responses: { '200': { description: 'x' } } } },
    },
    components: {
      parameters: { Limit: { name: 'limit', in: 'query', schema: { type: 'integer' } } },
      schemas: {
        Job: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            state: { type: 'string', enum: ['OPEN', 'CLOSED'] },
            groups: { type: 'array', items: { type: 'object', properties: { code: { type: 'string' } } } },
          },
        },
      },
    },
  });

  it('finds nothing between a document and itself, nor in additions', () => {
    const after = doc() as any;
    after.paths['/groups'] = { get: { responses: {} } };
    after.components.schemas.Job.properties.name = { type: 'string' };
    after.components.schemas.Job.properties.state.enum.push('ARCHIVED');
    expect(breakingChanges(doc(), doc())).to.deep.equal([]);
    expect(breakingChanges(doc(), after)).to.deep.equal([]);
  });

  it('names removed operations, parameters, response fields and enum values, and new requirements', () => {
    const after = doc() as any;
    delete after.paths['/jobs/{id}'];
    after.paths['/jobs'].get.parameters = [{ name: 'limit', in: 'query', required: true, schema: { type: 'integer' } }];
    after.paths['/jobs'].post.requestBody.content['application/json'].schema.required.push('name');
    delete after.components.schemas.Job.properties.groups.items.properties.code;
    after.components.schemas.Job.properties.state.enum = ['OPEN'];
    expect(breakingChanges(doc(), after)).to.have.members([
      'GET /jobs/{id}: operation removed',
      'GET /jobs: parameter query limit is now required',
      'GET /jobs: parameter query q removed',
      'POST /jobs: request field name is now required',
      'GET /jobs: response 200 field [].groups[].code removed',
      'POST /jobs: response 201 field .groups[].code removed',
      '#/components/schemas/Job/properties/state: enum value "CLOSED" removed',
    ]);
  });

  it('takes a renamed path variable for the same route (HTTP sees positions, not names)', () => {
    const withParameter = (name: string) => {
      const d = doc() as any;
      const item = d.paths['/jobs/{id}'];
      delete d.paths['/jobs/{id}'];
      item.get.parameters = [
        { name, in: 'path', required: true, schema: { type: 'string' } },
        { name: 'view', in: 'query', schema: { type: 'string', enum: ['short', 'full'] } },
      ];
      d.paths[`/jobs/{${name}}`] = item;
      return d;
    };
    expect(breakingChanges(withParameter('id'), withParameter('jobIdOrCode'))).to.deep.equal([]);
    // What the route does still counts: here an enum value of a query parameter goes.
    const narrowed = withParameter('jobIdOrCode');
    narrowed.paths['/jobs/{jobIdOrCode}'].get.parameters[1].schema.enum = ['short'];
    expect(breakingChanges(withParameter('id'), narrowed)).to.deep.equal(['#/paths//jobs/{}/get/parameters/1/schema: enum value "full" removed']);
    // A path parameter whose place in the template goes is still a removal.
    const moved = withParameter('id');
    moved.paths['/jobs/{id}'].get.parameters[0].name = 'other';
    expect(breakingChanges(withParameter('id'), moved)).to.include('GET /jobs/{id}: parameter path id removed');
  });

  describe('of every dated version (CI: --versions, between two generated/ trees)', () => {
    /** A generated/ tree: the newest version at its root, older ones under versions/<version>/. */
    function tree(versions: { version: string; sunsetAt?: string; contract: unknown }[] | null, unversioned?: unknown): string {
      const root = mkdtempSync(join(tmpdir(), 'versions-gate-'));
      if (!versions) return (writeFileSync(join(root, 'openapi.json'), JSON.stringify(unversioned)), root);
      mkdirSync(join(root, 'versions'));
      writeFileSync(join(root, 'versions', 'index.json'), JSON.stringify(versions.map(({ version, sunsetAt }) => ({ version, sunsetAt: sunsetAt ?? null }))));
      versions.forEach(({ version, contract }, i) => {
        const dir = i === 0 ? root : join(root, 'versions', version);
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, 'openapi.json'), JSON.stringify(contract));
      });
      return root;
    }
    const broken = () => {
      const d = doc() as any;
      delete d.components.schemas.Job.properties.state;
      return d;
    };

    it('takes a break of the newest that cuts a version, the previous contract kept as that version', () => {
      const before = tree(null, doc());
      const after = tree([
        { version: '2026-12-15', contract: broken() },
        { version: '2026-06-01', contract: doc() },
      ]);
      expect(versionBreaks(before, after)).to.deep.equal([]);
    });

    it('refuses a break of any version served before, the newest or an older one, and an older version dropped before its sunset', () => {
      const before = tree([
        { version: '2026-12-15', contract: doc() },
        { version: '2026-06-01', sunsetAt: '2027-12-15', contract: doc() },
      ]);
      // The newest broken, then the older one: each named.
      for (const [newest, older, named] of [
        [broken(), doc(), '2026-12-15'],
        [doc(), broken(), '2026-06-01'],
      ] as const) {
        const after = tree([
          { version: '2026-12-15', contract: newest },
          { version: '2026-06-01', contract: older },
        ]);
        expect(versionBreaks(before, after)).to.include(`version ${named}: GET /jobs: response 200 field [].state removed`);
      }
      const dropped = tree([{ version: '2026-12-15', contract: doc() }]);
      expect(versionBreaks(before, dropped, Date.parse('2027-01-01'))).to.deep.equal(['version 2026-06-01: removed before its sunset (2027-12-15)']);
      expect(versionBreaks(before, dropped, Date.parse('2027-12-16'))).to.deep.equal([]);
    });
  });
});
