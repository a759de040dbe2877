import http from 'node:http';
import type express from 'express';

/**
 * The HTTP server for an express app, with requests and responses created as express's own.
 *
 * express gives each incoming request and response its prototypes (`Object.setPrototypeOf(req,
 * app.request)`) as it enters the app. Changing an object's prototype after creation throws away
 * V8's inline caches for every object of that shape, node's own included: measured on the
 * benchmark, ~70 µs of CPU per request, as much as the rest of a `GET /jobs/:code`. node lets a
 * server construct its requests and responses from given classes; constructed from classes whose
 * prototypes already are `app.request` and `app.response`, express's `setPrototypeOf` finds the
 * prototype in place and changes nothing. express behaves exactly as before.
 */
export function createHttpServer(app: express.Express): http.Server {
  function Request(this: http.IncomingMessage, socket: any) {
    http.IncomingMessage.call(this, socket);
  }
  Request.prototype = app.request;
  function Response(this: http.ServerResponse, req: http.IncomingMessage, options?: any) {
    (http.ServerResponse as any).call(this, req, options);
  }
  Response.prototype = app.response;
  return http.createServer({ IncomingMessage: Request as any, ServerResponse: Response as any }, app);
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
