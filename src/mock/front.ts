import express, { type Request, type Response } from 'express';
import { request as httpRequest } from 'node:http';
import type { Context } from 'openapi-backend';
import type { ErrorObject } from 'ajv';
import { bearerCredential, type Authentication, type Authenticator } from '../auth/credentials';
import { FULL_ACCESS, type Caller } from '../auth/caller';
import { authentication } from '../http/authentication';
import { jsonBody } from '../http/body';
import { answerInvalidTokenRequest, tokenValidationFail } from '../resources/oauth2/token';
import { checkBatchSize, checkElements } from '../db/batch';
import { badRequest } from '../errors';
import { apiMiddleware, newBackend, registerRequestChecks, routeRequest } from '../http/backend';
import { contractOperations } from '../http/contract';
import type { OperationId } from '../http/handler';
import { inputGuard } from '../http/input-guard';
import { problemResponder } from '../http/problem';
import { parseQuery } from '../http/query';
import { requestId } from '../http/request-id';
import { byElement, toProblemItems, validationProblem } from '../http/validation-errors';
import { BATCH_LISTS } from '../resources';
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
 * The mock's front: the service's own request checks (routing, the credential's form, the body's
 * media type and JSON, the input guard, openapi-backend's validation with the service's ajv, the
 * batches' element errors) answer a bad request exactly as the service does; a good one goes on
 * to Prism, which answers from the contract's examples. Prism alone answers a bad request with
 * its own bodies (a 422 example, a 200 for an unknown parameter), which partners would build their
 * error handling against.
 */
export async function createMockFront(prism: { host: string; port: number }): Promise<express.Express> {
  const api = newBackend();
  registerRequestChecks(api);
  api.register({
    validationFail: async (c: Context, req: Request, res: Response) => {
      const operationId = c.operation.operationId as OperationId;
      const errors = (c.validation.errors ?? []) as ErrorObject[];
      if (operationId === 'issueToken') return tokenValidationFail(req, res, errors);
      const list = BATCH_LISTS[operationId];
      if (!list) throw validationProblem(errors as any);
      // A batch: the request's own errors as any request's, its elements' in the batch format.
      const { request, elements } = byElement(errors as any, list);
      if (request.length) throw badRequest(toProblemItems(request));
      const inputs = (c.request.requestBody as Record<string, unknown[]>)[list];
      checkBatchSize(inputs);
      checkElements(inputs, elements).errors.throwIfAny();
      return forward(req, res);
    },
  });
  for (const { operationId } of contractOperations())
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
        for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined && name !== 'x-request-id') res.setHeader(name, value);
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
  app.use(requestId);
  app.use(routeRequest(api));
  app.use(authentication(mockAuthenticate as Authenticator));
  app.use(jsonBody());
  app.use(inputGuard);
  app.use(apiMiddleware(api));
  app.use(problemResponder({ issueToken: answerInvalidTokenRequest }));
  return app;
}
