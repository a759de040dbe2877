import http from 'node:http';
import type express from 'express';
import { SERVER_OPTIONS } from './timeouts';
import { answerClientError, answerProblem } from './client-error';

/**
 * The HTTP server for an express app, with requests and responses created as express's own.
 *
 * express gives each incoming request and response its prototypes (`Object.setPrototypeOf(req,
 * app.request)`) as it enters the app. Changing an object's prototype after creation throws away
 * V8's inline caches for every object of that shape, node's own included: on the benchmark, as
 * much CPU per request as the rest of a `GET /jobs/:code` (docs/performance.md). node lets a
 * server construct its requests and responses from given classes, so the server hands it classes
 * whose prototypes are the app's request and response prototypes: express's `setPrototypeOf` finds
 * the prototype in place and changes nothing.
 *
 * They are classes (`class extends http.ServerResponse`), not functions that call node's
 * constructor on `this`: V8 gives a derived class's objects one stable shape with room for node's
 * fields, where a plain function's objects have room for a few; with more added by computed key
 * (node's symbol-keyed fields) each response became a slow dictionary object, a cost the
 * benchmark showed on every single read.
 */
export function createHttpServer(app: express.Express): http.Server {
  let classes = madeFor.get(app);
  if (!classes) {
    classes = { IncomingMessage: ownClass(app, 'request', http.IncomingMessage), ServerResponse: ownClass(app, 'response', http.ServerResponse) };
    madeFor.set(app, classes);
  }
  // The app's server options (timeouts bounding slow clients, see timeouts.ts) apply to its server.
  // Node answers an HTTP/1.1 request without Host (RFC 9112 3.2) and an Expect it does not know
  // with a bare status line; here they get the problem body every other error has.
  const server = http.createServer(
    { ...classes, requireHostHeader: false, ...(app.get(SERVER_OPTIONS) as http.ServerOptions | undefined) },
    (req: http.IncomingMessage, res: http.ServerResponse) => {
      if (req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor === 1) {
        return answerProblem(res, 400, 'bad-request', 'An HTTP/1.1 request must carry a Host header.');
      }
      app(req, res);
    },
  );
  server.on('checkExpectation', (_req: http.IncomingMessage, res: http.ServerResponse) =>
    answerProblem(res, 417, 'expectation-failed', 'Only "Expect: 100-continue" is supported.'),
  );
  server.on('clientError', answerClientError);
  return server;
}

const madeFor = new WeakMap<express.Express, { IncomingMessage: typeof http.IncomingMessage; ServerResponse: typeof http.ServerResponse }>();

/**
 * A subclass of node's class whose prototype takes the place of the app's `app.request` or
 * `app.response`: it has the same own properties and inherits from the same express prototype.
 */
function ownClass<T extends typeof http.IncomingMessage | typeof http.ServerResponse>(app: express.Express, kind: 'request' | 'response', base: T): T {
  const current = app[kind] as object;
  const own = class extends (base as typeof http.IncomingMessage) {};
  Object.setPrototypeOf(own.prototype, Object.getPrototypeOf(current));
  Object.defineProperties(own.prototype, Object.getOwnPropertyDescriptors(current));
  (app as unknown as Record<string, object>)[kind] = own.prototype;
  return own as unknown as T;
}

/** Listens as `app.listen` does, on the server above; resolves once listening. */
export function listen(app: express.Express, port: number, host?: string): Promise<http.Server> {
  const server = createHttpServer(app);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
