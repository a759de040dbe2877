import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import OpenAPIBackend from 'openapi-backend';
import { newBackend } from '../src/http/backend';
import { contractOperations, loadContract } from '../src/http/contract';
import { parseQuery } from '../src/http/query';
import { ROOT } from '../src/paths';

const run = promisify(execFile);

/** The host every sample calls (the document's server URL is relative: `/`). */
export const SAMPLE_BASE_URL = 'https://api.example-procurement.com';

/**
 * The main operations of each resource (list, read, create, update, batch where they exist, and
 * the integration-state reports and the token endpoint): each carries a `curl` and a TypeScript
 * sample in `x-codeSamples`, which Redoc shows next to the operation.
 */
export const MAIN_OPERATIONS = [
  'issueToken',
  // jobs
  'listJobs',
  'getJob',
  'createJob',
  'updateJob',
  'upsertJobs',
  // phases (global and job)
  'listGlobalPhases',
  'getGlobalPhase',
  'createGlobalPhase',
  'updateGlobalPhase',
  'upsertPhases',
  'listJobPhases',
  'getJobPhase',
  'createJobPhase',
  'updateJobPhase',
  // cost categories (global, job and phase)
  'listGlobalCategories',
  'getGlobalCategory',
  'createGlobalCategory',
  'updateGlobalCategory',
  'listJobCategories',
  'createJobCategory',
  'listJobPhaseCategories',
  'createJobPhaseCategory',
  // vendors
  'listVendors',
  'getVendor',
  'createVendor',
  'updateVendor',
  'upsertVendors',
  // orders and items (GET /items is the bulk pull)
  'listOrders',
  'getOrder',
  'listOrderItems',
  'listItems',
  'getItem',
  // invoices and invoice items
  'listInvoices',
  'getInvoice',
  'listInvoiceItems',
  'markInvoicesPaid',
  'listAllInvoiceItems',
  // releases and change orders
  'listReleases',
  'listOrderReleases',
  'listChangeOrders',
  'getChangeOrder',
  // delivery receipts and requisitions
  'listDeliveryReceipts',
  'getDeliveryReceipt',
  'listDeliveryReceiptItems',
  'listRequisitions',
  'getRequisition',
  'listRequisitionItems',
  'updateRequisitionState',
  // integration state
  'updateOrderIntegrationState',
  'setChangeOrderIntegrationState',
  'updateDeliveryReceiptIntegrationState',
];

interface CodeSample {
  lang: string;
  label: string;
  source: string;
}

interface SampleOperation {
  method: string;
  path: string;
  operationId: string;
  operation: any;
  samples: CodeSample[];
}

const sampled = (): SampleOperation[] =>
  contractOperations()
    .filter((o) => o.operation['x-codeSamples'])
    .map((o) => ({ ...o, samples: o.operation['x-codeSamples'] as CodeSample[] }));

const sampleOf = (o: SampleOperation, lang: string) => o.samples.find((s) => s.lang === lang)?.source ?? '';

/** Shell words of a command line: quotes, backslash-newline continuations and `#` comment lines. */
export function shellWords(command: string): string[] {
  const text = command
    .split('\n')
    .filter((line) => !line.trim().startsWith('#'))
    .join('\n')
    .replace(/\\\n/g, ' ');
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated ' in: ${command}`);
      word = (word ?? '') + text.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      const end = text.indexOf('"', i + 1);
      if (end < 0) throw new Error(`unterminated " in: ${command}`);
      word = (word ?? '') + text.slice(i + 1, end);
      i = end;
    } else if (/[?*[&;|<>()`]/.test(c)) {
      // Unquoted, the shell would glob, background, chain or redirect here.
      throw new Error(`unquoted ${c} in: ${command}`);
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

export interface CurlRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  data: string[];
}

/** What a `curl` command line sends (the options our samples use; anything else is an error). */
export function parseCurl(command: string): CurlRequest {
  const words = shellWords(command);
  if (words[0] !== 'curl') throw new Error(`not a curl command: ${command}`);
  let method: string | undefined;
  let url: string | undefined;
  let get = false;
  const headers: Record<string, string> = {};
  const data: string[] = [];
  for (let i = 1; i < words.length; i++) {
    const w = words[i];
    const value = () => {
      if (i + 1 >= words.length) throw new Error(`${w} needs a value`);
      return words[++i];
    };
    if (w === '-X' || w === '--request') method = value();
    else if (w === '-H' || w === '--header') {
      const h = value();
      const colon = h.indexOf(':');
      headers[h.slice(0, colon).trim().toLowerCase()] = h.slice(colon + 1).trim();
    } else if (w === '-d' || w === '--data' || w === '--data-raw' || w === '--data-binary') data.push(value());
    else if (w === '--data-urlencode') {
      const v = value();
      const eq = v.indexOf('=');
      if (eq < 1) throw new Error(`--data-urlencode wants name=value: ${v}`);
      data.push(`${v.slice(0, eq)}=${encodeURIComponent(v.slice(eq + 1))}`);
    } else if (w === '-G' || w === '--get') get = true;
    else if (['-s', '--silent', '-S', '--show-error', '-g', '--globoff', '-f', '--fail', '--fail-with-body'].includes(w)) continue;
    else if (/^https?:\/\//.test(w)) {
      if (url) throw new Error(`two URLs in: ${command}`);
      url = w;
    } else throw new Error(`curl option the samples test does not know: ${w}`);
  }
  if (!url) throw new Error(`no URL in: ${command}`);
  const parsed = new URL(url);
  if (get && data.length) parsed.search = [parsed.search.replace(/^\?/, ''), ...data].filter(Boolean).join('&');
  return { method: (method ?? (data.length && !get ? 'POST' : 'GET')).toUpperCase(), url: parsed, headers, data: get ? [] : data };
}

/**
 * x-codeSamples: every main operation has a `curl` and a TypeScript sample. Each curl sample
 * sends a request the contract accepts (checked by the service's own validator) to the operation
 * it documents; every TypeScript sample type-checks against the generated types with openapi-fetch
 * (the way examples/ does), and run with fetch answered from the document's examples, sends
 * requests the contract accepts.
 */
describe('code samples in the contract (x-codeSamples)', function () {
  this.timeout(120_000);
  /** The request validator of the service (openapi-backend with the service's ajv settings). */
  let api: OpenAPIBackend;
  /** An integrator's project: the generated types, openapi-fetch, and the samples. */
  let dir: string;

  before(async () => {
    api = newBackend();
    await api.init();
    dir = mkdtempSync(join(tmpdir(), 'code-samples-'));
    mkdirSync(join(dir, 'generated'));
    copyFileSync(join(ROOT, 'generated', 'api-types.ts'), join(dir, 'generated', 'api-types.ts'));
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  });
  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Problems of one request a sample sends: the operation it reaches and the contract's verdict. */
  const checkRequest = (o: SampleOperation, where: string, req: { method: string; url: URL; headers: Record<string, string>; body: unknown }): string[] => {
    const problems: string[] = [];
    if (req.url.origin !== SAMPLE_BASE_URL) problems.push(`${where}: calls ${req.url.origin}, not ${SAMPLE_BASE_URL}`);
    const path = req.url.pathname;
    const matched = api.router.matchOperation({ method: req.method, path, headers: {} });
    if (matched?.operationId !== o.operationId) return [...problems, `${where}: ${req.method} ${path} is ${matched?.operationId ?? 'no operation'}`];
    const query = parseQuery(req.url.search.replace(/^\?/, '')) as Record<string, string>;
    const result = api.validateRequest({ method: req.method, path, headers: req.headers, query, body: req.body }, o.operationId);
    if (!result.valid) problems.push(`${where}: the contract rejects it: ${(result.errors ?? []).map((e) => `${e.instancePath} ${e.message}`).join('; ')}`);
    return problems;
  };

  it('are on every main operation, as a curl and a TypeScript sample', () => {
    const byId = new Map(contractOperations().map((o) => [o.operationId, o.operation]));
    const gaps: string[] = [];
    for (const id of MAIN_OPERATIONS) {
      if (!byId.has(id)) {
        gaps.push(`${id}: not in the document`);
        continue;
      }
      const samples = (byId.get(id)!['x-codeSamples'] ?? []) as CodeSample[];
      for (const [lang, label] of [
        ['curl', 'curl'],
        ['TypeScript', 'TypeScript'],
      ]) {
        if (!samples.some((s) => s.lang === lang && s.label === label && s.source?.trim())) gaps.push(`${id}: no ${lang} sample`);
      }
    }
    expect(gaps).to.deep.equal([]);
  });

  it('come in pairs: only curl and TypeScript, each once', () => {
    for (const o of sampled()) {
      expect(o.samples.map((s) => s.lang).sort(), o.operationId).to.deep.equal(['TypeScript', 'curl']);
    }
  });

  it('curl: each sample calls its own operation with a request the contract accepts', () => {
    const problems: string[] = [];
    for (const o of sampled()) {
      const where = `${o.operationId} (${o.method} ${o.path}) curl`;
      let req: CurlRequest;
      try {
        req = parseCurl(sampleOf(o, 'curl'));
      } catch (err) {
        problems.push(`${where}: ${(err as Error).message}`);
        continue;
      }
      const secured = (o.operation.security ?? loadContract().security ?? []).length > 0;
      if (secured && req.headers.authorization !== 'Bearer $TOKEN') problems.push(`${where}: no "Authorization: Bearer $TOKEN" header`);
      if (!secured && req.headers.authorization) problems.push(`${where}: sends Authorization to an unsecured operation`);
      let body: unknown;
      if (req.data.length) {
        const type = req.headers['content-type'] ?? 'application/x-www-form-urlencoded';
        if (!Object.keys(o.operation.requestBody?.content ?? {}).includes(type)) problems.push(`${where}: sends ${type}, which the operation does not take`);
        try {
          body = type === 'application/json' ? JSON.parse(req.data.join('')) : Object.fromEntries(new URLSearchParams(req.data.join('&')));
        } catch (err) {
          problems.push(`${where}: body is not JSON: ${(err as Error).message}`);
          continue;
        }
      } else if (o.operation.requestBody?.required) problems.push(`${where}: sends no body`);
      problems.push(...checkRequest(o, where, { method: req.method, url: req.url, headers: req.headers, body }));
    }
    expect(problems).to.deep.equal([]);
  });

  it('TypeScript: each sample calls its own operation with openapi-fetch and the generated types', () => {
    const problems: string[] = [];
    for (const o of sampled()) {
      const ts = sampleOf(o, 'TypeScript');
      const where = `${o.operationId} TypeScript`;
      if (!ts.includes("import createClient from 'openapi-fetch';")) problems.push(`${where}: does not import openapi-fetch`);
      if (!/^import type \{[^}]*\bpaths\b[^}]*\} from '\.\/generated\/api-types';$/m.test(ts)) problems.push(`${where}: does not import the generated paths`);
      if (!ts.includes(`baseUrl: '${SAMPLE_BASE_URL}'`)) problems.push(`${where}: baseUrl is not ${SAMPLE_BASE_URL}`);
      const calls = [...ts.matchAll(/\.(GET|POST|PUT|PATCH|DELETE)\(\s*'([^']+)'/g)].map((m) => `${m[1]} ${m[2]}`);
      if (!calls.includes(`${o.method} ${o.path}`)) problems.push(`${where}: never calls ${o.method} ${o.path} (calls: ${calls.join(', ') || 'none'})`);
    }
    expect(problems).to.deep.equal([]);
  });

  it('TypeScript: every sample type-checks against generated/api-types.ts (tsc --noEmit, strict)', async () => {
    // How an integrator's project would compile them: ES modules (top-level await), strict.
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'ESNext',
          moduleResolution: 'Bundler',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
        },
        include: ['*.ts', 'generated/*.ts'],
      }),
    );
    const files = sampled().map((o) => {
      const file = `${o.operationId}.ts`;
      // The preamble only names the sample; each sample brings its own imports and client.
      writeFileSync(join(dir, file), `// x-codeSamples TypeScript of ${o.operationId} (${o.method} ${o.path})\n${sampleOf(o, 'TypeScript')}`);
      return file;
    });
    expect(files.length).to.be.at.least(MAIN_OPERATIONS.length);
    // A control that must fail, so a setup where the types resolve to `any` cannot pass.
    writeFileSync(
      join(dir, 'control.ts'),
      [
        "import createClient from 'openapi-fetch';",
        "import type { paths } from './generated/api-types';",
        `const api = createClient<paths>({ baseUrl: '${SAMPLE_BASE_URL}' });`,
        "await api.GET('/jobs', { params: { query: { orderBy: 'colour' } } });",
        '',
      ].join('\n'),
    );
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const out = await run(process.execPath, [tsc, '-p', dir, '--pretty', 'false'], { cwd: dir }).then(
      (r) => r.stdout + r.stderr,
      (err: { stdout?: string; stderr?: string }) => `${err.stdout ?? ''}${err.stderr ?? ''}`,
    );
    const errors = out
      .trim()
      .split('\n')
      .filter((line) => /error TS/.test(line));
    expect(
      errors.filter((line) => !line.startsWith('control.ts')),
      out,
    ).to.deep.equal([]);
    expect(
      errors.some((line) => line.startsWith('control.ts(4,')),
      `the control must fail to type-check:\n${out}`,
    ).to.equal(true);
  });

  it('TypeScript: every sample runs, and each request it sends is one the contract accepts', async () => {
    // Each sample is transpiled to an ES module and run with fetch answering the operation's
    // documented success example, so the requests openapi-fetch really builds (query serialization
    // included) are checked by the service's validator, and the code after the call runs too.
    const problems: string[] = [];
    const env = { TOKEN: process.env.TOKEN, CLIENT_ID: process.env.CLIENT_ID, CLIENT_SECRET: process.env.CLIENT_SECRET };
    const realFetch = globalThis.fetch;
    const realLog = console.log;
    let current: SampleOperation | undefined;
    let calls = 0;
    globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
      const request = input instanceof Request ? input : new Request(input, init);
      const o = current!;
      calls++;
      const where = `${o.operationId} TypeScript, request ${calls}`;
      const headers = Object.fromEntries(request.headers.entries());
      const text = request.method === 'GET' ? '' : await request.text();
      let body: unknown;
      if (text) body = (headers['content-type'] ?? '').startsWith('application/json') ? JSON.parse(text) : Object.fromEntries(new URLSearchParams(text));
      const secured = (o.operation.security ?? loadContract().security ?? []).length > 0;
      if (secured && headers.authorization !== 'Bearer sample-token') problems.push(`${where}: does not send the bearer token`);
      problems.push(...checkRequest(o, where, { method: request.method, url: new URL(request.url), headers, body }));
      const [status, response] = Object.entries(o.operation.responses as Record<string, any>).find(([code]) => code.startsWith('2'))!;
      const media = response.content?.['application/json'];
      // A page asked for by cursor answers the last-page example where there is one (its
      // nextCursor is null), so a sample that reads pages until the cursor runs out ends.
      const named = Object.values(media?.examples ?? {}) as { value?: { meta?: { nextCursor?: unknown } } }[];
      const followUp =
        (new URL(request.url).searchParams.get('cursor') ?? 'start') !== 'start' ? named.find((e) => e.value?.meta?.nextCursor === null) : undefined;
      const example = followUp?.value ?? media?.example ?? named[0]?.value;
      return new Response(example === undefined ? null : JSON.stringify(example), { status: Number(status), headers: { 'Content-Type': 'application/json' } });
    };
    Object.assign(process.env, { TOKEN: 'sample-token', CLIENT_ID: 'cl_4f9a2c7e1b3d', CLIENT_SECRET: 'cs_Q2xpZW50U2VjcmV0RXhhbXBsZQ' });
    const ts = await import('typescript');
    try {
      for (const o of sampled()) {
        const file = join(dir, `${o.operationId}.run.mjs`);
        const js = ts.transpileModule(sampleOf(o, 'TypeScript'), {
          compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
        }).outputText;
        writeFileSync(file, js);
        current = o;
        calls = 0;
        console.log = () => undefined;
        try {
          await import(pathToFileURL(file).href);
        } catch (err) {
          problems.push(`${o.operationId} TypeScript: throws ${(err as Error).message}`);
        } finally {
          console.log = realLog;
        }
        if (calls === 0) problems.push(`${o.operationId} TypeScript: sends no request`);
      }
    } finally {
      globalThis.fetch = realFetch;
      console.log = realLog;
      for (const [k, v] of Object.entries(env)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
    expect(problems).to.deep.equal([]);
  });

  it('the curl parser reads the options the samples use and rejects others', async () => {
    expect(parseCurl(`curl -s -g '${SAMPLE_BASE_URL}/jobs?filter[state]=OPEN' \\\n  -H "Authorization: Bearer $TOKEN"`)).to.deep.include({
      method: 'GET',
      headers: { authorization: 'Bearer $TOKEN' },
    });
    const post = parseCurl(`curl -s -X PATCH ${SAMPLE_BASE_URL}/jobs/J-1042 -H 'Content-Type: application/json' -d '{"state": "CLOSED"}'`);
    expect(post.method).to.equal('PATCH');
    expect(post.data).to.deep.equal(['{"state": "CLOSED"}']);
    const get = parseCurl(`curl -s -G ${SAMPLE_BASE_URL}/vendors --data-urlencode 'filter[name_contains]=Electric Supply'`);
    expect(get.url.search).to.equal('?filter[name_contains]=Electric%20Supply');
    expect(() => parseCurl(`curl --unknown-option ${SAMPLE_BASE_URL}/jobs`)).to.throw(/does not know/);
    expect(() => parseCurl(`curl -s ${SAMPLE_BASE_URL}/jobs?limit=5 -H "Authorization: Bearer $TOKEN"`)).to.throw(/unquoted \?/);
    expect(() => parseCurl(`curl -s '${SAMPLE_BASE_URL}/jobs?limit=5'&offset=5`)).to.throw(/unquoted &/);
  });
});
