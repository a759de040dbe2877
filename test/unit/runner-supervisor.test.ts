import { expect } from 'chai';
import { EventEmitter } from 'node:events';
import type { Runner } from 'graphile-worker';
import { superviseRunner } from '../../src/background/supervisor';
import { eventually } from '../support/webhook-receiver';

/**
 * A stand-in for a graphile-worker runner, as much of it as the supervisor uses (`promise`, `stop()`,
 * `events`): the database-backed behaviour is in background-tasks.test.ts; this checks the
 * supervisor's bookkeeping (one replacement per runner, stop during a restart) without timing races.
 */
class FakeRunner {
  readonly events = new EventEmitter();
  stops = 0;
  /** stop() shuts the pool down but the runner never ends (graphile-worker 0.17.3's batcher, unpatched). */
  hangs = false;
  private settle!: { resolve: () => void; reject: (err: Error) => void };
  readonly promise = new Promise<void>((resolve, reject) => (this.settle = { resolve, reject }));

  async stop(): Promise<void> {
    this.stops++;
    this.events.emit('pool:gracefulShutdown:complete', {});
    if (this.hangs) return new Promise<void>(() => undefined);
    this.settle.resolve();
  }
  /** The pool ended by itself (an error it logged), as graphile-worker's runner.promise resolves then. */
  end(): void {
    this.settle.resolve();
  }
  /** The pool shut down by itself, and the runner's end hangs (stop() then too). */
  shutDownAndHang(): void {
    this.hangs = true;
    this.events.emit('pool:gracefulShutdown:complete', {});
  }
  get runner(): Runner {
    return this as unknown as Runner;
  }
}

/** Lets every callback of settled promises run (the supervisor reacts in promise callbacks). */
const settled = () => new Promise((resolve) => setImmediate(resolve));

function harness(...starts: (() => Promise<FakeRunner>)[]) {
  const lines: string[] = [];
  const log = { error: (m: string) => lines.push(m), warn: (m: string) => lines.push(m) };
  const started: FakeRunner[] = [];
  let calls = 0;
  const start = async () => {
    const next = starts[calls++] ?? (async () => new FakeRunner());
    const runner = await next();
    started.push(runner);
    return runner.runner;
  };
  return { lines, started, calls: () => calls, start, log };
}

const TIMING = { stalledShutdownMs: 30, restartDelayMs: 10 };

describe('unit: the background runner supervisor', () => {
  it('replaces a runner that ends by itself, once', async () => {
    const h = harness();
    const sup = await superviseRunner(h.start, h.log, TIMING);
    h.started[0].end();
    await eventually('a second runner', () => h.started.length === 2, 5000);
    expect(sup.current()).to.equal(h.started[1].runner);
    expect(h.lines).to.deep.equal(['worker stopped by itself; starting a new one', 'worker started again']);
    await sup.stop();
    expect(h.started[1].stops).to.equal(1);
    expect(h.calls()).to.equal(2);
  });

  it("gives up a runner whose end hangs after its pool's shutdown, and does not replace it again when it ends later", async () => {
    const h = harness();
    const sup = await superviseRunner(h.start, h.log, TIMING);
    const first = h.started[0];
    first.shutDownAndHang();
    await eventually('a second runner', () => h.started.length === 2, 5000);
    expect(first.stops, 'its stop() called, to release its cron and listener').to.equal(1);
    expect(h.lines).to.deep.equal(["worker did not end within 0.03 s of its pool's shutdown; gave it up, starting a new one", 'worker started again']);
    first.end();
    await settled();
    expect(h.lines, 'nothing more when the given-up runner ends after all').to.have.length(2);
    await sup.stop();
    expect(h.calls()).to.equal(2);
  });

  it('starts again after a failed start with a growing delay, and keeps the runner it then gets', async () => {
    const refused = async (): Promise<FakeRunner> => {
      throw new Error('the database refused');
    };
    const h = harness(async () => new FakeRunner(), refused, refused);
    const sup = await superviseRunner(h.start, h.log, TIMING);
    h.started[0].end();
    await eventually('a second runner', () => h.started.length === 2, 5000);
    expect(h.lines).to.deep.equal([
      'worker stopped by itself; starting a new one',
      'worker could not start; trying again in 0.01 s',
      'worker could not start; trying again in 0.02 s',
      'worker started again',
    ]);
    expect(sup.current()).to.equal(h.started[1].runner);
    await sup.stop();
  });

  it('a stop during a restart waits for the start under way and stops the runner it made; nothing starts after', async () => {
    let release!: () => void;
    const slow = () => new Promise<FakeRunner>((resolve) => (release = () => resolve(new FakeRunner())));
    const h = harness(async () => new FakeRunner(), slow);
    const sup = await superviseRunner(h.start, h.log, TIMING);
    h.started[0].end();
    await eventually('the restart under way', () => h.calls() === 2, 5000);
    const stopping = sup.stop();
    let stopped = false;
    void stopping.then(() => (stopped = true));
    await settled();
    expect(stopped, 'stop() waits for the start under way').to.equal(false);
    release();
    await stopping;
    expect(h.started[1].stops, 'the runner started meanwhile is stopped').to.equal(1);
    expect(h.lines).to.deep.equal(['worker stopped by itself; starting a new one']);
    await settled();
    expect(h.calls()).to.equal(2);
  });

  it('a stop whose runner hangs in its end returns once the watch gives that runner up', async () => {
    const h = harness();
    const sup = await superviseRunner(h.start, h.log, TIMING);
    h.started[0].hangs = true;
    await sup.stop();
    expect(h.started[0].stops).to.equal(1);
    expect(h.lines, 'a stopping supervisor logs no replacement').to.deep.equal([]);
    expect(h.calls()).to.equal(1);
  });
});
