/**
 * Compile-time checks of the typed test client (test/support/client.ts): `npx tsc -p .` compiles this
 * file (tsconfig includes test/), and each `@ts-expect-error` fails the build when the line under it
 * compiles, so a regression of the typing breaks the build. Nothing here runs (mocha loads *.test.js).
 */
import { expectStatus, problemOf, type Client, type PathOf, type RequestBody } from '../support/client';

export async function paths(api: Client, code: string, query: string) {
  await api.get('/jobs');
  await api.get(`/jobs/${code}/phases?limit=5`);
  await api.get(`/orders${query}`);
  await api.post('/jobs/batch', { inputs: [{ code, name: 'Batch' }] });
  // @ts-expect-error a path no template of the contract has
  await api.get(`/jobz/${code}`);
  // @ts-expect-error a template the contract has, without this method (units of measure are never deleted)
  await api.delete(`/units-of-measure/${code}`);
  // @ts-expect-error one segment too many
  await api.get(`/jobs/${code}/phases/${code}/categories/${code}/${code}`);
  // @ts-expect-error a path the caller builds from any string
  await api.get(query);
  // @ts-expect-error the escape is the only way to send HEAD
  await api.request('HEAD', '/jobs');
  await api.unchecked.request('HEAD', '/jobs');
  const helper = (path: PathOf<'get'>) => api.get(path);
  await helper(`/vendors/${code}`);
  // @ts-expect-error a helper's path is checked at its caller
  await helper('/vendorz');
}

export async function bodies(api: Client, code: string) {
  await api.post('/tax-codes', { code, description: 'Sales tax', taxPercent: 0.07 });
  // @ts-expect-error a field of the wrong type
  await api.post('/tax-codes', { code, description: 'Sales tax', taxPercent: '7 %' });
  // @ts-expect-error an unknown field
  await api.post('/tax-codes', { code, description: 'Sales tax', taxPercent: 0.07, colour: 'red' });
  // @ts-expect-error a missing required field
  await api.post('/tax-codes', { code, taxPercent: 0.07 });
  // @ts-expect-error a required body left out
  await api.post('/tax-codes');
  // @ts-expect-error a raw body where the contract takes JSON
  await api.post('/tax-codes', undefined, { raw: '{"code":', contentType: 'application/json' });
  await api.unchecked.post('/tax-codes', { code: 7, colour: 'red' });
  // A property with a default in a create schema is optional (openapi-typescript `defaultNonNullable: false`).
  await api.post('/webhook-endpoints', { url: 'https://hooks.example/procurement' });
  const tags: RequestBody<'post', '/order/o/tags'> = [{ title: 'Long lead' }];
  // @ts-expect-error a colour the contract's palette does not have
  tags.push({ title: 'Urgent', color: '#123456' });
}

export async function responses(api: Client, code: string) {
  const job = expectStatus(await api.get(`/jobs/${code}`), 200).body;
  const name: string = job.name;
  // @ts-expect-error a field a job does not have
  void job.colour;
  const page = expectStatus(await api.get('/releases?limit=5'), 200).body;
  const first: string = page.data[0].id;
  // @ts-expect-error GET /jobs answers an array, not a page
  void expectStatus(await api.get('/jobs'), 200).body.data;
  // @ts-expect-error a status the operation does not document
  expectStatus(await api.get(`/jobs/${code}`), 201);
  const res = await api.get(`/jobs/${code}`);
  if (res.status === 404) {
    const detail: string = res.body.detail;
    void detail;
  }
  const problem = problemOf(res, 404);
  // @ts-expect-error the response union is read only after narrowing it by status
  void res.body.code;
  return [name, first, problem.detail];
}
