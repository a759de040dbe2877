import { expect } from 'chai';
import OpenAPIBackend from 'openapi-backend';
import type { OpenAPIV3 } from 'openapi-types';
import { contractOperations, loadContract } from '../src/http/contract';
import { customizeAjv } from '../src/http/backend';
import { Child, fetchFrom } from './support/child';
import { startPrism } from './support/mock';

/**
 * The mock (`npm run mock`: Prism behind the service's request checks, src/mock/) is faithful and
 * useful: it starts quickly and offline, and for every operation a request built from the
 * document's own examples gets a response that validates against the schema, with realistic
 * values (no `string`, no placeholder zeros).
 */
function resolveRef(doc: any, obj: any): any {
  if (!obj || typeof obj !== 'object' || !obj.$ref) return obj;
  const path = (obj.$ref as string).replace(/^#\//, '').split('/');
  return resolveRef(
    doc,
    path.reduce((o: any, k: string) => o[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc),
  );
}

/** Placeholder values a generator would produce instead of a written example. */
function placeholders(value: unknown, path = '$', found: string[] = []): string[] {
  if (typeof value === 'string' && /^(string|lorem|test|foo|bar|example)$/i.test(value)) found.push(`${path} = ${JSON.stringify(value)}`);
  if (Array.isArray(value)) value.forEach((v, i) => placeholders(v, `${path}[${i}]`, found));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) placeholders(v, `${path}.${k}`, found);
  return found;
}

/** The request the document's own examples make for an operation. */
function exampleRequestOf(doc: any, BASE: string, path: string, operation: any, extraHeaders: Record<string, string> = {}): { url: string; init: RequestInit } {
  const operationId = operation.operationId;
  const params = [...(doc.paths[path]!.parameters ?? []), ...(operation.parameters ?? [])].map((p: any) => resolveRef(doc, p));
  let url = path;
  for (const p of params.filter((p: any) => p.in === 'path')) {
    const value = p.example ?? p.schema?.example;
    expect(value, `path parameter ${p.name} of ${operationId} needs an example`).to.not.equal(undefined);
    url = url.replace(`{${p.name}}`, encodeURIComponent(String(value)));
  }
  const query = new URLSearchParams();
  for (const p of params.filter((p: any) => p.in === 'query' && p.required)) query.set(p.name, String(p.example ?? p.schema?.example));
  const headers: Record<string, string> = { Authorization: 'Bearer pk_mock', ...extraHeaders };
  let body: string | undefined;
  const requestBody = resolveRef(doc, operation.requestBody);
  if (requestBody) {
    const [type, media] = Object.entries(requestBody.content as Record<string, any>)[0];
    const example = media.example ?? Object.values(media.examples ?? {}).map((e: any) => resolveRef(doc, e).value)[0];
    expect(example, `${operationId} needs a request example`).to.not.equal(undefined);
    headers['Content-Type'] = type;
    body = type === 'application/x-www-form-urlencoded' ? new URLSearchParams(example).toString() : JSON.stringify(example);
  }
  return { url: `${BASE}${url}${query.size ? '?' + query : ''}`, init: { method: operation.method, headers, body } };
}

describe('the Prism mock of the contract', function () {
  // Prism parses the whole contract at start: on a loaded 2-core machine, well over a minute.
  this.timeout(240_000);
  let prism: Child;
  let BASE: string;
  const validator = new OpenAPIBackend({ definition: structuredClone(loadContract()) as any, quick: false, validate: true, customizeAjv: customizeAjv as any });

  before(async function () {
    await validator.init();
    const started = Date.now();
    ({ prism, base: BASE } = await startPrism());
    // Reported, not asserted: a loaded machine is many times slower than an idle one.
    console.log(`    (Prism mock ready in ${((Date.now() - started) / 1000).toFixed(1)} s)`);
  });

  after(async () => {
    await prism?.stop();
  });

  it('starts quietly: a few lines, not a log line per generated request (npm run mock)', () => {
    expect(prism.output().length, prism.output().slice(0, 2000)).to.be.below(4000);
  });

  const doc = loadContract();

  const exampleRequest = (path: string, operation: any, extraHeaders: Record<string, string> = {}) =>
    exampleRequestOf(doc, BASE, path, operation, extraHeaders);

  for (const { method, path, operationId, operation } of contractOperations(doc)) {
    it(`${method} ${path} (${operationId}) answers a realistic, valid example`, async () => {
      const { url, init } = exampleRequest(path, { ...operation, method });
      const res = await fetchFrom(prism, url, init, 'prism mock');
      const text = await res.text();
      expect(res.status, `${operationId}: ${text.slice(0, 500)}`).to.be.within(200, 299);
      expect(res.headers.get('x-request-id'), `${operationId}: X-Request-Id`).to.be.a('string').and.not.equal('');
      const parsed = text ? JSON.parse(text) : undefined;
      const result = validator.validateResponse(parsed, operationId, res.status);
      expect(result.errors ?? [], `${operationId} mock response violates its schema`).to.deep.equal([]);
      expect(placeholders(parsed), `${operationId} mock response has placeholder values`).to.deep.equal([]);
    });
  }

  /** The problem body the mock answers an operation's example request with `Prefer: code=<status>` (and `example=<name>`). */
  async function errorExample(path: string, method: string, operation: any, status: number, example?: string): Promise<any> {
    const { url, init } = exampleRequest(path, { ...operation, method }, { Prefer: `code=${status}${example ? `, example=${example}` : ''}` });
    const res = await fetchFrom(prism, url, init, 'prism mock');
    const problem = await res.json();
    expect(res.status, JSON.stringify(problem)).to.equal(status);
    expect(res.headers.get('x-request-id'), `${operation.operationId}: X-Request-Id`).to.be.a('string').and.not.equal('');
    return problem;
  }

  // Every 404 is the contract's one NotFound response (api/components/responses/NotFound.yaml):
  // `Prefer: code=404` answers its one example, valid against the operation's schema. What the
  // operation looks up it says in its own words, in its description's last paragraph `404`: ...,
  // which names every path parameter and a resource of its path (when it has one: the 404 of a
  // collection's write is about what its body refers to).
  const notFound = doc.components!.responses!.NotFound as OpenAPIV3.ResponseObject;
  for (const { method, path, operationId, operation } of contractOperations(doc).filter((o) => o.operation.responses?.['404'])) {
    it(`${method} ${path} (${operationId}) answers Prefer: code=404 with the shared NotFound example and says what it looks up`, async () => {
      expect(operation.responses['404'], operationId).to.deep.equal({ $ref: '#/components/responses/NotFound' });
      const problem = await errorExample(path, method, operation, 404);
      expect(problem, operationId).to.deep.equal(notFound.content!['application/problem+json'].example);
      const result = validator.validateResponse(problem, operationId, 404);
      expect(result.errors ?? [], `${operationId} 404 violates its schema`).to.deep.equal([]);
      const own = (operation.description as string).trimEnd().split('\n\n').pop()!;
      expect(own, operationId).to.match(/^`404`: /);
      for (const [, param] of path.matchAll(/\{([^}]+)\}/g)) expect(own, operationId).to.include(`\`${param}\``);
      // (GET /reconciliation/{resource}: its parameter names a resource, not an object of one.)
      const nouns = nounsOf(path);
      if (/\{/.test(path) && nouns.length)
        expect(
          nouns.some((noun) => own.includes(noun)),
          `${operationId}: ${own}`,
        ).to.equal(true);
    });
  }

  /** The 409 examples an operation documents: each named example, or its one `example`. */
  function conflictExamples(operation: any): { name?: string; value: any }[] {
    const media = resolveRef(doc, operation.responses['409']).content['application/problem+json'];
    if (media.examples) return Object.entries(media.examples as Record<string, any>).map(([name, e]) => ({ name, value: resolveRef(doc, e).value }));
    return [{ value: media.example }];
  }

  /**
   * What a conflict of the operation may name: a field of its own request body, its own
   * `Idempotency-Key` header, or (writes under /orders and /items) the order the write is refused for.
   */
  function ownFields(path: string, operation: any): string[] {
    const fields: string[] = [];
    const params = [...(doc.paths[path]!.parameters ?? []), ...(operation.parameters ?? [])].map((p: any) => resolveRef(doc, p));
    if (params.some((p: any) => p.in === 'header' && p.name === 'Idempotency-Key')) fields.push('header.Idempotency-Key');
    const media: any = Object.values(resolveRef(doc, operation.requestBody)?.content ?? {})[0];
    let schema = resolveRef(doc, media?.schema);
    if (schema?.type === 'array') schema = resolveRef(doc, schema.items);
    for (const part of [schema, ...(schema?.allOf ?? []).map((s: any) => resolveRef(doc, s))])
      for (const key of Object.keys(part?.properties ?? {})) fields.push(`body.${key}`);
    if (nounsOf(path).some((noun) => noun === 'order' || noun === 'item')) fields.push('order');
    return fields;
  }

  // `Prefer: code=409` answers the operation's conflict, and `Prefer: example=<name>` each of its
  // named conflicts (the order writes document one per case), exactly as documented. Each is the
  // operation's own: a unique value the resource's own examples use (not another resource's code),
  // its own `Idempotency-Key` (with that header's example key), a field of its own body (a state
  // move, a stale version) or the order of an item write.
  for (const { method, path, operationId, operation } of contractOperations(doc).filter((o) => o.operation.responses?.['409'])) {
    for (const { name, value: documented } of conflictExamples(operation)) {
      it(`${method} ${path} (${operationId}) answers Prefer: code=409${name ? `, example=${name}` : ''} with a conflict of its own`, async () => {
        const problem = await errorExample(path, method, operation, 409, name);
        expect(problem, operationId).to.deep.equal(documented);
        const { message, field, rule } = problem.errors[0];
        expect(problem.type, `${operationId}: ${message}`).to.match(/^\/problems\/[a-z-]+$/);
        if (rule !== 'unique') expect(ownFields(path, operation), `${operationId}: ${message}`).to.include(field);
        if (rule === 'unique' || rule === 'in-progress') {
          const value = (/^[^:]+: (.+) is already used/.exec(message) ??
            /^header\.Idempotency-Key: a request with key (\S+) is still being processed/.exec(message))?.[1];
          expect(value, message).to.be.a('string');
          expect(examplesOfResource(doc, path.split('/')[1]), `${operationId}: ${value}`).to.contain(value);
        }
      });
    }
  }

  it('serves the named examples the README shows (Prefer: example=<name>), with nextCursor in the bulk page', async () => {
    const get = (prefer?: string) => fetch(`${BASE}/items`, { headers: { Authorization: 'Bearer pk_mock', ...(prefer ? { Prefer: prefer } : {}) } });
    const first = await (await get()).json();
    expect(first.meta.nextCursor).to.be.a('string').and.not.equal('');
    const last = await get('example=lastPage');
    expect(last.status).to.equal(200);
    const lastPage = await last.json();
    expect(lastPage.meta.nextCursor).to.equal(null);
    expect(lastPage.data).to.have.length(1);
    expect((await get('example=cursorPage').then((r) => r.json())).meta.nextCursor).to.equal(first.meta.nextCursor);
  });
});

/** Every example (parameters, bodies, success responses) of the operations under /<segment>, as JSON. */
function examplesOfResource(doc: any, segment: string): string {
  const found: unknown[] = [];
  for (const { path, operation } of contractOperations(doc).filter((o) => o.path.split('/')[1] === segment)) {
    for (const p of [...(doc.paths[path].parameters ?? []), ...(operation.parameters ?? [])].map((x: any) => resolveRef(doc, x)))
      found.push(p.example ?? p.schema?.example);
    const bodies = [
      resolveRef(doc, operation.requestBody),
      ...Object.entries(operation.responses ?? {})
        .filter(([code]) => code.startsWith('2'))
        .map(([, r]) => resolveRef(doc, r)),
    ];
    for (const media of bodies.flatMap((b: any) => Object.values(b?.content ?? {})) as any[]) {
      found.push(media.example, ...Object.values(media.examples ?? {}).map((e: any) => resolveRef(doc, e).value));
    }
  }
  return JSON.stringify(found);
}

/** Resource nouns of a path's segments, as the 404 details and the operations' `404` paragraphs name them. */
const NOUNS: Record<string, string[]> = {
  'tax-codes': ['tax code'],
  'units-of-measure': ['unit of measure'],
  jobs: ['job'],
  groups: ['group'],
  locations: ['location'],
  vendors: ['vendor'],
  'global-phases': ['phase'],
  phases: ['phase'],
  'global-categories': ['cost category'],
  categories: ['cost category'],
  users: ['user'],
  orders: ['order'],
  order: ['order'],
  tags: ['tag'],
  items: ['item'],
  changeOrders: ['change order'],
  releases: ['order', 'release'],
  billOfMaterials: ['bill of materials'],
  billOfMaterialsItem: ['bill-of-materials item'],
  requisitions: ['requisition'],
  'warehouse-requests': ['warehouse request'],
  warehouseRequests: ['warehouse request'],
  deliveries: ['delivery receipt'],
  invoices: ['invoice'],
  notifications: ['notification'],
  buyerId: ['order'],
  'webhook-endpoints': ['webhook endpoint'],
};
const nounsOf = (path: string) => path.split('/').flatMap((segment) => NOUNS[segment] ?? []);

describe('the Prism mock in dynamic mode (prism mock -d)', function () {
  this.timeout(240_000);
  let prism: Child;
  let base: string;
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  const doc = loadContract();
  const validator = new OpenAPIBackend({ definition: structuredClone(doc) as any, quick: false, validate: true, customizeAjv: customizeAjv as any });

  before(async () => {
    await validator.init();
    ({ prism, base } = await startPrism('-d', '--seed', 'procurement'));
  });
  after(async () => {
    await prism?.stop();
  });

  /** Keys of an object that its (closed) schema does not list, and id fields that are not uuids. */
  function invented(value: any, schema: any, at: string, found: string[]): string[] {
    schema = resolveRef(doc, schema);
    if (Array.isArray(value)) value.forEach((v, i) => invented(v, schema.items, `${at}[${i}]`, found));
    else if (value && typeof value === 'object' && schema?.properties) {
      for (const [key, v] of Object.entries(value)) {
        if (!(key in schema.properties)) found.push(`${at}.${key} is not in the schema`);
        else if (key === 'id' && typeof v === 'string' && !UUID.test(v)) found.push(`${at}.${key} = ${v} is not a uuid`);
        else invented(v, schema.properties[key], `${at}.${key}`, found);
      }
    }
    return found;
  }

  // Every GET of the contract, on the request its examples make: Prism invents every value, so
  // only closed schemas (additionalProperties: false) and formatted ids keep it to the contract.
  for (const { path, operationId, operation } of contractOperations(doc).filter((o) => o.method === 'GET')) {
    it(`GET ${path} (${operationId}) invents no field the schema does not list, and uuid ids`, async () => {
      const { url, init } = exampleRequestOf(doc, base, path, { ...operation, method: 'GET' });
      const res = await fetchFrom(prism, url, init, 'prism mock -d');
      const text = await res.text();
      expect(res.status, text.slice(0, 300)).to.be.within(200, 299);
      const body = text ? JSON.parse(text) : undefined;
      const result = validator.validateResponse(body, operationId, res.status);
      expect(result.errors ?? [], `${operationId} dynamic response violates its schema`).to.deep.equal([]);
      const media = resolveRef(doc, operation.responses[String(res.status)])?.content?.['application/json'];
      if (media) expect(invented(body, media.schema, '$', [])).to.deep.equal([]);
    });
  }
});
