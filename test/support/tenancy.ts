import { expect } from 'chai';
import type { ApiResponse, TestOrg } from './client';

export const MISSING_ID = '00000000-0000-4000-8000-000000000000';

/** The parts of a 404 that may differ between two requests: request id, IDs and the looked-up keys. */
function normalize(res: ApiResponse, path: string): string {
  let text = JSON.stringify({ ...res.body, requestId: undefined });
  for (const segment of path.split(/[/?&=]/).filter((s) => s.length > 2)) text = text.split(segment).join('<key>');
  return text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<key>');
}

/**
 * Asserts that `intruder` gets for another organization's object exactly what it gets for a
 * missing one: 404 and the same body apart from the request id and the identifiers it names.
 */
export async function expectForeignLikeMissing(intruder: TestOrg, method: string, path: string, missingPath: string, body?: unknown): Promise<void> {
  // Probes of many operations, the method chosen at run time: sent unchecked.
  const foreign = await intruder.api.unchecked.request(method, path, body);
  const missing = await intruder.api.unchecked.request(method, missingPath, body);
  expect(foreign.status, `${method} ${path}: ${foreign.text}`).to.equal(404);
  expect(missing.status, `${method} ${missingPath}: ${missing.text}`).to.equal(404);
  expect(normalize(foreign, path), `${method} ${path}`).to.equal(normalize(missing, missingPath));
}
