import { TimeoutError } from 'tarn';

/**
 * The connection pool under knex: tarn's interface (what knex calls: `acquire().promise`,
 * `release`, `destroy`) and tarn's rules for the options knex hands it, with a lighter acquire.
 *
 * Why not tarn itself: tarn wraps every acquire in two timed pending operations (two timers set
 * and cleared, about ten promises, an event per step). Here an acquire that finds a free
 * connection is one validation and no timer; only an acquire that has to wait sets its timeout.
 *
 * Kept from tarn, because the service relies on them:
 * - an acquire that waits longer than `acquireTimeoutMillis` is rejected with tarn's TimeoutError,
 *   which knex turns into its "Timeout acquiring a connection" error (a 503, src/db/pg-errors.ts);
 * - a failed connect is handed to the longest-waiting acquire (`propagateCreateError`), so a
 *   database outage answers at once; the others retry after `createRetryIntervalMillis`;
 * - every connection is validated before it is handed out (knex drops connections that errored);
 * - free connections idle for `idleTimeoutMillis` are closed, keeping `min`;
 * - `destroy()` waits for connections in use to come back, then closes them all.
 * A create timeout of its own is not kept: the pg driver's `connectionTimeoutMillis` bounds a connect.
 */
export interface PoolOptions<T> {
  min?: number;
  max: number;
  acquireTimeoutMillis?: number;
  idleTimeoutMillis?: number;
  reapIntervalMillis?: number;
  createRetryIntervalMillis?: number;
  propagateCreateError?: boolean;
  create(): Promise<T>;
  destroy(resource: T): unknown;
  validate?(resource: T): boolean | Promise<boolean>;
  log?(message: string, level: string): void;
}

interface Waiter<T> {
  resolve(resource: T): void;
  reject(err: unknown): void;
  timer: NodeJS.Timeout;
}

export class LightPool<T> {
  private readonly free: { resource: T; since: number }[] = [];
  private readonly used = new Set<T>();
  private readonly waiters: Waiter<T>[] = [];
  private creating = 0;
  private destroyed = false;
  private reaper: NodeJS.Timeout | undefined;
  private retry: NodeJS.Timeout | undefined;
  private drained: (() => void) | undefined;
  private readonly min: number;
  private readonly max: number;
  private readonly acquireTimeoutMillis: number;
  private readonly idleTimeoutMillis: number;
  private readonly reapIntervalMillis: number;
  private readonly createRetryIntervalMillis: number;
  private readonly propagateCreateError: boolean;

  constructor(private readonly options: PoolOptions<T>) {
    this.min = options.min ?? 0;
    this.max = options.max;
    if (!(this.max >= 1)) throw new Error('pool: max must be at least 1');
    this.acquireTimeoutMillis = options.acquireTimeoutMillis ?? 30_000;
    this.idleTimeoutMillis = options.idleTimeoutMillis ?? 30_000;
    this.reapIntervalMillis = options.reapIntervalMillis ?? 1_000;
    this.createRetryIntervalMillis = options.createRetryIntervalMillis ?? 200;
    this.propagateCreateError = options.propagateCreateError ?? true;
  }

  acquire(): { promise: Promise<T> } {
    if (this.destroyed) return { promise: Promise.reject(new Error('aborted')) };
    const free = this.free.pop();
    if (free) {
      this.used.add(free.resource);
      return { promise: this.checkOut(free.resource) };
    }
    return { promise: new Promise<T>((resolve, reject) => this.wait(resolve, reject)) };
  }

  /** Gives a connection back; false when it is not one this pool handed out (tarn's answer). */
  release(resource: T): boolean {
    if (!this.used.delete(resource)) return false;
    const waiter = this.waiters.shift();
    if (waiter) {
      clearTimeout(waiter.timer);
      this.used.add(resource);
      this.checkOut(resource).then(waiter.resolve, waiter.reject);
    } else {
      this.free.push({ resource, since: performance.now() });
      this.startReaping();
    }
    this.checkDrained();
    return true;
  }

  async destroy(): Promise<void> {
    this.destroyed = true;
    clearInterval(this.reaper);
    clearTimeout(this.retry);
    this.reaper = this.retry = undefined;
    for (const waiter of this.waiters.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.reject(new Error('aborted'));
    }
    if (this.used.size || this.creating) await new Promise<void>((resolve) => (this.drained = resolve));
    await Promise.all(this.free.splice(0).map(({ resource }) => this.close(resource)));
  }

  numUsed(): number {
    return this.used.size;
  }
  numFree(): number {
    return this.free.length;
  }
  numPendingAcquires(): number {
    return this.waiters.length;
  }
  numPendingCreates(): number {
    return this.creating;
  }
  numPendingValidations(): number {
    return 0;
  }

  /** Validates a reserved connection; an invalid one is closed and the caller acquires afresh. */
  private checkOut(resource: T): Promise<T> {
    const validate = this.options.validate;
    if (!validate) return Promise.resolve(resource);
    return Promise.resolve()
      .then(() => validate(resource))
      .catch((err) => {
        this.options.log?.(`pool: validation threw ${(err as Error)?.message ?? err}`, 'warn');
        return false;
      })
      .then((valid) => {
        if (valid) return resource;
        this.used.delete(resource);
        void this.close(resource);
        this.checkDrained();
        return this.acquire().promise;
      });
  }

  private wait(resolve: (resource: T) => void, reject: (err: unknown) => void): void {
    const waiter: Waiter<T> = {
      resolve,
      reject,
      timer: setTimeout(() => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(new TimeoutError('operation timed out for an unknown reason'));
      }, this.acquireTimeoutMillis),
    };
    this.waiters.push(waiter);
    this.createIfRoom();
  }

  /** Opens connections while acquires wait and there is room (never more than are waiting). */
  private createIfRoom(): void {
    while (!this.destroyed && this.creating < this.waiters.length && this.used.size + this.free.length + this.creating < this.max) {
      this.creating++;
      this.options.create().then(
        (resource) => {
          this.creating--;
          if (this.destroyed) {
            void this.close(resource);
            this.checkDrained();
            return;
          }
          const waiter = this.waiters.shift();
          if (waiter) {
            clearTimeout(waiter.timer);
            this.used.add(resource);
            waiter.resolve(resource);
          } else {
            this.free.push({ resource, since: performance.now() });
            this.startReaping();
          }
        },
        (err) => {
          this.creating--;
          if (this.destroyed) return this.checkDrained();
          const first = this.propagateCreateError ? this.waiters.shift() : undefined;
          if (first) {
            clearTimeout(first.timer);
            first.reject(err);
          }
          if (this.waiters.length && !this.retry) {
            this.retry = setTimeout(() => {
              this.retry = undefined;
              this.createIfRoom();
            }, this.createRetryIntervalMillis);
          }
        },
      );
    }
  }

  private close(resource: T): Promise<void> {
    return Promise.resolve()
      .then(() => this.options.destroy(resource))
      .then(
        () => undefined,
        (err) => this.options.log?.(`pool: closing a connection failed: ${(err as Error)?.message ?? err}`, 'warn'),
      );
  }

  private startReaping(): void {
    if (this.reaper || this.destroyed) return;
    this.reaper = setInterval(() => this.reap(), this.reapIntervalMillis);
    this.reaper.unref();
  }

  /** Closes free connections idle for idleTimeoutMillis, keeping `min` open in all. */
  private reap(): void {
    const now = performance.now();
    let closable = this.free.length + this.used.size - this.min;
    for (let i = 0; i < this.free.length && closable > 0; ) {
      if (now - this.free[i].since >= this.idleTimeoutMillis) {
        void this.close(this.free.splice(i, 1)[0].resource);
        closable--;
      } else i++;
    }
    if (!this.free.length && !this.used.size) {
      clearInterval(this.reaper);
      this.reaper = undefined;
    }
  }

  private checkDrained(): void {
    if (this.drained && !this.used.size && !this.creating) {
      const done = this.drained;
      this.drained = undefined;
      done();
    }
  }
}
