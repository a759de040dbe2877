import DataLoader from 'dataloader';

/**
 * Reads of one kind that arrive while such a read is running share the next statement, as a
 * DataLoader batch: the single reads by `:idOrCode` of one resource, organization and shape
 * (resource.ts). A read that finds none running is sent at once (in a microtask: the reads of the
 * same moment join it); while `maxInFlight` of its kind are running, it waits with the others that
 * arrive meanwhile, and they go together, as one statement, when one of those ends.
 *
 * Why: a single read is one small statement, and on a busy machine most of what it costs is the
 * statement itself, in node (a pool connection, the protocol's messages) and in PostgreSQL (waking a
 * backend, the executor's start, the snapshot), not the row: ten concurrent `GET /jobs/J-1042` cost
 * the database nearly ten times one. Waiting changes nothing a request can see: each read still
 * gets its own row, read by a statement sent after the request arrived, so it sees every write
 * committed before that (a read never joins a statement already sent). Keys are not merged: two
 * requests for the same object are two rows of the statement, as they were two statements.
 * Nothing is cached.
 */
export class CoalescedReads<K, V> {
  private readonly groups = new Map<string, Group<K, V>>();

  constructor(
    private readonly options: {
      /** Statements of one kind running at once; the reads that come while they run wait for one to end. */
      maxInFlight: number;
      /** Reads per statement, at most. */
      maxBatch: number;
    },
  ) {}

  /**
   * `key`'s value, read by `run` with the other keys of its kind (`kind`) waiting with it: `run`
   * gets the keys in arrival order and answers one value (or Error) per key, in the same order.
   * The `run` of a kind's first read serves every read of the kind while any is running or
   * waiting, so a kind must name everything `run` depends on but the keys (resource.ts: the
   * database handle and resource by instance, the shape and organization in `kind`).
   */
  load(kind: string, key: K, run: (keys: readonly K[]) => Promise<(V | Error)[]>): Promise<V> {
    let group = this.groups.get(kind);
    if (!group) this.groups.set(kind, (group = this.group(kind, run)));
    return group.loader.load(key);
  }

  /** Kinds with a statement running or waiting (for tests: an idle kind leaves nothing behind). */
  get activeKinds(): number {
    return this.groups.size;
  }

  private group(kind: string, run: (keys: readonly K[]) => Promise<(V | Error)[]>): Group<K, V> {
    const { maxInFlight, maxBatch } = this.options;
    const group: Group<K, V> = {
      inFlight: 0,
      held: [],
      loader: new DataLoader<K, V>(
        (keys) =>
          run(keys).finally(() => {
            group.inFlight--;
            const next = group.held.shift();
            if (next) {
              group.inFlight++;
              next();
            } else if (group.inFlight === 0 && this.groups.get(kind) === group) {
              // Idle: nothing of this kind is kept (organizations come and go).
              this.groups.delete(kind);
            }
          }),
        {
          cache: false,
          maxBatchSize: maxBatch,
          batchScheduleFn: (dispatch) => {
            if (group.inFlight < maxInFlight) {
              group.inFlight++;
              queueMicrotask(dispatch);
            } else {
              group.held.push(dispatch);
            }
          },
        },
      ),
    };
    return group;
  }
}

interface Group<K, V> {
  loader: DataLoader<K, V>;
  /** Statements sent (or about to be, in a microtask) and not yet answered. */
  inFlight: number;
  /** Batches waiting for one of those to end, oldest first. */
  held: (() => void)[];
}
