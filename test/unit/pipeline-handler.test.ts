import { expect } from 'chai';
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import { oneHandler } from '../../src/http/pipeline';

/**
 * The pipeline's steps run as one handler (src/http/pipeline.ts oneHandler) the way express's
 * router runs handlers given to `app.use`: in order, errors to the next error handler, throws and
 * rejected promises as errors, then the app's own `next`.
 */
describe('oneHandler', () => {
  const req = {} as Request;
  const res = {} as Response;

  /** Runs the steps; resolves with what reached the app's own `next` and the steps that ran. */
  function run(steps: (ran: string[]) => (RequestHandler | ErrorRequestHandler)[]): Promise<{ ran: string[]; done: unknown[] }> {
    const ran: string[] = [];
    return new Promise((resolve) => {
      const done: NextFunction = (...args: unknown[]) => resolve({ ran, done: args });
      oneHandler(steps(ran))(req, res, done);
    });
  }

  const step =
    (name: string, then: (next: NextFunction) => unknown = (next) => next()) =>
    (ran: string[]): RequestHandler =>
    (_req, _res, next) => {
      ran.push(name);
      return then(next) as void;
    };
  const onError =
    (name: string, then: (err: unknown, next: NextFunction) => unknown = (err, next) => next(err)) =>
    (ran: string[]): ErrorRequestHandler =>
    (err, _req, _res, next) => {
      ran.push(`${name}(${(err as Error).message})`);
      return then(err, next) as void;
    };
  const steps =
    (...made: ((ran: string[]) => RequestHandler | ErrorRequestHandler)[]) =>
    (ran: string[]) =>
      made.map((m) => m(ran));

  it('runs every step in order, skips error handlers, then the app’s next without an error', async () => {
    expect(await run(steps(step('a'), onError('e'), step('b'), step('c')))).to.deep.equal({ ran: ['a', 'b', 'c'], done: [undefined] });
  });

  it('passes next(err) to the next error handlers only, each handing it on, then to the app’s next', async () => {
    const failed = await run(
      steps(
        step('a', (next) => next(new Error('bad'))),
        step('b'),
        onError('e1'),
        step('c'),
        onError('e2'),
      ),
    );
    expect(failed.ran).to.deep.equal(['a', 'e1(bad)', 'e2(bad)']);
    expect((failed.done[0] as Error).message).to.equal('bad');
  });

  it('treats a throw and a rejected promise as errors, and an error handler’s next() as recovery', async () => {
    const thrown = await run(
      steps(
        step('a', () => {
          throw new Error('thrown');
        }),
        step('b'),
        onError('e', (_err, next) => next()),
        step('c', async () => Promise.reject(new Error('rejected'))),
        step('d'),
        onError('f'),
      ),
    );
    expect(thrown.ran).to.deep.equal(['a', 'e(thrown)', 'c', 'f(rejected)']);
    expect((thrown.done[0] as Error).message).to.equal('rejected');
  });

  it("leaves the steps on next('router'), and reads next('route') as no error", async () => {
    expect(
      await run(
        steps(
          step('a', (next) => next('route')),
          step('b', (next) => next('router')),
          step('c'),
        ),
      ),
    ).to.deep.equal({ ran: ['a', 'b'], done: [] });
  });
});
