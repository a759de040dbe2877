import { expect } from 'chai';
import { spawn, ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import OpenAPIBackend from 'openapi-backend';
import { contractOperations, loadContract } from '../src/http/contract';
import { customizeAjv } from '../src/http/backend';
import { ROOT } from '../src/paths';

/**
 * The Prism mock (`npm run mock`) is faithful and useful: it starts quickly and offline, and for
 * every operation a request built from the document's own examples gets a response that
 * validates against the schema, with realistic values (no `string`, no placeholder zeros).
 */
const PORT = 4000 + (process.pid % 900);
const BASE = `http://127.0.0.1:${PORT}`;

function resolveRef(doc: any, obj: any): any {
  if (!obj || typeof obj !== 'object' || !obj.$ref) return obj;
  const path = (obj.$ref as string).replace(/^#\//, '').split('/');
  return resolveRef(doc, path.reduce((o: any, k: string) => o[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc));
}

/** Placeholder values a generator would produce instead of a written example. */
function placeholders(value: unknown, path = '$', found: string[] = []): string[] {
  if (typeof value === 'string' && /^(string|lorem|test|foo|bar|example)$/i.test(value)) found.push(`${path} = ${JSON.stringify(value)}`);
  if (Array.isArray(value)) value.forEach((v, i) => placeholders(v, `${path}[${i}]`, found));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) placeholders(v, `${path}.${k}`, found);
  return found;
}

describe('the Prism mock of the contract', function () {
  this.timeout(90_000);
  let prism: ChildProcess;
  const validator = new OpenAPIBackend({ definition: structuredClone(loadContract()) as any, quick: false, validate: true, customizeAjv: customizeAjv as any });

  before(async function () {
    await validator.init();
    const started = Date.now();
    prism = spawn(join(ROOT, 'node_modules', '.bin', 'prism'), ['mock', join(ROOT, 'generated', 'openapi.yaml'), '--port', String(PORT), '--host', '127.0.0.1'], {
      stdio: 'ignore',
    });
    for (;;) {
      try {
        await fetch(BASE + '/openapi-mock-readiness');
        break;
      } catch {
        if (Date.now() - started > 60_000) throw new Error('Prism did not start within 60 s');
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    // The README promises about 2 s (offline, on an idle machine); the bound only catches a
    // pathological start, since a loaded CI machine can be several times slower.
    const seconds = (Date.now() - started) / 1000;
    console.log(`    (Prism mock ready in ${seconds.toFixed(1)} s)`);
    expect(seconds).to.be.below(45);
  });

  after(() => {
    prism?.kill();
  });

  const doc = loadContract();
  for (const { method, path, operationId, operation } of contractOperations(doc)) {
    it(`${method} ${path} (${operationId}) answers a realistic, valid example`, async () => {
      const params = [...(doc.paths[path].parameters ?? []), ...(operation.parameters ?? [])].map((p: any) => resolveRef(doc, p));
      let url = path;
      for (const p of params.filter((p: any) => p.in === 'path')) {
        const value = p.example ?? p.schema?.example;
        expect(value, `path parameter ${p.name} of ${operationId} needs an example`).to.not.equal(undefined);
        url = url.replace(`{${p.name}}`, encodeURIComponent(String(value)));
      }
      const query = new URLSearchParams();
      for (const p of params.filter((p: any) => p.in === 'query' && p.required)) query.set(p.name, String(p.example ?? p.schema?.example));
      const headers: Record<string, string> = { Authorization: 'Bearer pk_mock' };
      let body: string | undefined;
      const requestBody = resolveRef(doc, operation.requestBody);
      if (requestBody) {
        const [type, media] = Object.entries(requestBody.content as Record<string, any>)[0];
        const example = media.example ?? Object.values(media.examples ?? {}).map((e: any) => resolveRef(doc, e).value)[0];
        expect(example, `${operationId} needs a request example`).to.not.equal(undefined);
        headers['Content-Type'] = type;
        body = type === 'application/x-www-form-urlencoded' ? new URLSearchParams(example).toString() : JSON.stringify(example);
      }
      const res = await fetch(`${BASE}${url}${query.size ? '?' + query : ''}`, { method, headers, body });
      const text = await res.text();
      expect(res.status, `${operationId}: ${text.slice(0, 500)}`).to.be.within(200, 299);
      const parsed = text ? JSON.parse(text) : undefined;
      const result = validator.validateResponse(parsed, operationId, res.status);
      expect(result.errors ?? [], `${operationId} mock response violates its schema`).to.deep.equal([]);
      expect(placeholders(parsed), `${operationId} mock response has placeholder values`).to.deep.equal([]);
    });
  }
});
