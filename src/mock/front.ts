import express, { type Request, type Response } from 'express';
import { request as httpRequest } from 'node:http';
import type { Context } from 'openapi-backend';
import { bearerCredential, type Authentication, type Authenticator } from '../auth/credentials';
import { FULL_ACCESS, type Caller } from '../auth/caller';
import { checkBatchSize, checkElements } from '../db/batch';
import { newBackend, registerRequestChecks, registerValidationFail } from '../http/backend';
import { contractOperations } from '../http/contract';
import { pipelineSteps, type PipelineDeps } from '../http/pipeline';
import { contractOf, NEWEST } from '../versions/registry';
import { parseQuery } from '../http/query';
import { BATCH_LISTS, OWN_PROBLEM_FORMATS, VALIDATION_FAIL_FOR } from '../resources';
import type { OperationId } from '../http/handler';
import { notAFeedCursor } from '../resources/changes/handlers';
import { checkUrlForm } from '../resources/webhook-endpoints/handlers';
import { isCursorShaped } from '../feed/cursor';

/** Whom the mock says a well-formed credential belongs to: nobody in particular, allowed everything. */
const MOCK_CALLER: Caller = {
  organizationId: '00000000-0000-4000-8000-000000000000',
  userId: '00000000-0000-4000-8000-000000000000',
  via: 'apiKey',
  credentialId: 'mock',
  scopes: FULL_ACCESS,
};

/**
 * What the service refuses from the request alone, past the contract's schemas, refused alike (the
 * same errors): a feed cursor of no feed's form, a webhook target the service never accepts. (The
 * mock knows no organization: another organization's cursor, or a host a deployment allows with
 * WEBHOOK_ALLOWED_HOSTS, is the service's to judge.)
 */
const REQUEST_RULES: Partial<Record<OperationId, (c: Context) => void>> = {
  listChanges: (c) => {
    const after = c.request.query.after;
    if (typeof after === 'string' && after !== 'now' && !isCursorShaped(after)) throw notAFeedCursor();
  },
  createWebhookEndpoint: (c) => checkUrlForm((c.request.requestBody as { url?: string })?.url),
  updateWebhookEndpoint: (c) => checkUrlForm((c.request.requestBody as { url?: string })?.url),
};

/** Any well-formed bearer credential passes; a missing or malformed one is the service's 401. */
const mockAuthenticate = async (header: string | undefined): Promise<Authentication> => {
  const given = bearerCredential(header);
  return given.error ? { error: given.error } : { caller: MOCK_CALLER };
};

/**
 * The steps of the service's pipeline (src/http/pipeline.ts) the mock's front leaves out, and why;
 * it runs every other one, in the pipeline's order (test/unit/mock-front.test.ts holds that every
 * name here is a step of the pipeline).
 */
export const MOCK_LEAVES_OUT: Readonly<Record<string, string>> = {
  singleHost: 'Prism answers whatever Host it is given; the mock serves one developer',
  compression: 'Prism compresses, or not, its own answers',
  requestLog: 'the mock logs nothing per request',
  observeRequests: 'the mock has no /metrics',
  securityHeaders: "Prism's answers go back with Prism's headers",
  cors: 'Prism answers preflights with its own CORS headers',
  probes: 'the mock has no database to probe; Prism answers /healthz from the contract',
  metrics: 'the mock has no /metrics',
  noStoreWithCredentials: "Prism's answers go back with Prism's headers",
  docsAndContract: 'the contract is the mock itself; the docs page is served by `npm run docs`',
  recordProblems: 'contract coverage is counted against the service, in its test mode',
  rateLimits: 'the mock has no database and no limits',
  fairShare: 'the mock has no database pool',
  requestedVersion: 'the mock serves one version (`npm run mock -- --api-version <date>`), which every answer names',
  versionContracts: 'the mock serves the one contract of its version',
  pinnedVersion: 'the mock stores no credential, so none is pinned',
  deprecatedUsage: 'the mock has no database: nothing is counted or listed',
};

/**
 * The mock's front: the service's own request checks (routing, the credential's form, the body's
 * media type and JSON, the input guard, openapi-backend's validation with the service's ajv, the
 * batches' element errors) answer a bad request exactly as the service does; a good one goes on
 * to Prism, which answers from the contract's examples. Prism alone answers a bad request with
 * its own bodies (a 422 example, a 200 for an unknown parameter), which partners would build their
 * error handling against.
 */
export async function createMockFront(prism: { host: string; port: number }, version: string = NEWEST): Promise<express.Express> {
  // The checks of the version served (its own contract: fields, validation, examples).
  const contract = contractOf(version);
  const api = newBackend(contract);
  registerRequestChecks(api);
  registerValidationFail(api, VALIDATION_FAIL_FOR, BATCH_LISTS, async (c, req, res, list, elements) => {
    // A batch whose elements the schema rejects: named in the batch format, as the operation would.
    const inputs = (c.request.requestBody as Record<string, unknown[]>)[list];
    checkBatchSize(inputs);
    checkElements(inputs, elements).errors.throwIfAny();
    return forward(req, res);
  });
  for (const { operationId } of contractOperations(contract))
    api.register(operationId, (c: Context, req: Request, res: Response) => {
      REQUEST_RULES[operationId as OperationId]?.(c);
      return forward(req, res);
    });
  await api.init();

  /** The request as it came (its body as parsed: JSON, or the token endpoint's form) to Prism, and Prism's answer back. */
  function forward(req: Request, res: Response): Promise<void> {
    const body =
      req.body === undefined
        ? undefined
        : Buffer.from(req.is('application/x-www-form-urlencoded') ? new URLSearchParams(req.body).toString() : JSON.stringify(req.body));
    const headers = { ...req.headers, host: `${prism.host}:${prism.port}` };
    delete headers['transfer-encoding'];
    delete headers['content-length'];
    if (body) headers['content-length'] = String(body.length);
    return new Promise((resolve, reject) => {
      const upstream = httpRequest({ host: prism.host, port: prism.port, method: req.method, path: req.originalUrl, headers }, (answer) => {
        res.status(answer.statusCode ?? 502);
        for (const [name, value] of Object.entries(answer.headers))
          if (value !== undefined && name !== 'x-request-id' && name !== 'api-version') res.setHeader(name, value);
        answer.pipe(res);
        answer.on('end', resolve);
        answer.on('error', reject);
      });
      upstream.on('error', reject);
      upstream.end(body);
    });
  }

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', parseQuery);
  // Every answer says the version it is of, as the service's.
  app.use((req: Request, res: Response, next: express.NextFunction) => (res.setHeader('Api-Version', version), next()));
  // The service's pipeline, but for the steps it leaves out (MOCK_LEAVES_OUT): those are the ones
  // that read the settings, the database and the logger, which the mock does not have.
  const steps = pipelineSteps({ api, authenticate: mockAuthenticate as Authenticator, ownProblemFormats: OWN_PROBLEM_FORMATS } as PipelineDeps);
  for (const [name, make] of Object.entries(steps)) {
    const step = !(name in MOCK_LEAVES_OUT) && make();
    if (step) app.use(step);
  }
  return app;
}
