import { expectStatus, newOrg } from '../support/client';
export async function f(id: string, q: string) {
  const org = await newOrg();
  const a = expectStatus(await org.api.get(`/jobs/${id}`), 200).body;
  const b = expectStatus(await org.api.get(`/jobs/${id}/phases?limit=5`), 200).body;
  const c = expectStatus(await org.api.get('/invoices/paid'), 200).body;
  const d = expectStatus(await org.api.post('/jobs/batch', { inputs: [] }), 200).body;
  const e = await org.api.get(`/jobz/${id}`);
  const g = await org.api.get(`/orders${q}`);
  const h = await org.api.post('/jobs', { code: 'x', name: 'y', bogus: 1 });
  const i = await org.api.get('/jobs?limit=3');
  const j = await org.api.get(`/jobs/${id}/phases/${q}/categories`);
  return [a, b, c, d, e, g, h, i, j];
}
