import type OpenAPIBackend from 'openapi-backend';
import type { Context } from 'openapi-backend';
import type { Knex } from 'knex';
import type { Request, Response } from 'express';
import type { Db } from '../db/knex';
import type { Config } from '../config';
import { ApiError } from '../errors';
import type { RejectedElements } from '../db/batch';
import { jsonText, JsonParts, JsonStream } from '../db/json';
import { type ChangeCollector, NO_CHANGES, writeTransaction } from '../feed/append';
import type { Emitter, ReadInOrder } from '../feed/emit';
import type { FeedResource } from '../feed/change-types';
import { underNoOpRule } from '../feed/unchanged';
import type { Caller, OperationId } from './handler';
import { idempotent } from './idempotency';
import { checkIfMatch, conditionsOf, etagAtVersion, etagOf, ifMatchOf, notModified, readObjectOfWrite, type ObjectsOfWrites } from './conditional';
import { originOf } from './origin';
import { replyLinks } from './links';
import { contextOf } from './context';
import { recordCoverage } from './coverage';
import { sendParts, sendWhole } from './send-parts';
import type { VersionMoves } from '../versions/registry';

/** An operation's reply: a status, a body (a value, JSON text or parts, a stream) and headers. */
export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

type AnyHandler = (ctx: unknown) => Promise<Reply>;

/** What the steps of one run of an operation share (one per request; a retried transaction fills it again). */
export interface Run {
  readonly operationId: OperationId;
  readonly c: Context;
  readonly req: Request;
  readonly res: Response;
  /** Authenticated and its scopes checked before the body was read (src/http/authentication.ts). */
  readonly caller: Caller | undefined;
  /** A batch's elements the contract's schema rejected (BackendDeps.batchLists). */
  readonly rejected: RejectedElements;
  /** An authenticated write's transaction and its feed entries (the transaction step sets them). */
  trx?: Knex.Transaction;
  changes?: ChangeCollector;
  /** The last reply body parsed (valueOf), so that no step parses the same reply again. */
  parsed?: { body: unknown; value: unknown };
}

/** A step: its part before the steps below it, `next()` for them, its part with their reply after. */
type Step = (run: Run, next: () => Promise<Reply>) => Promise<Reply>;

export interface OperationDeps {
  db: Db;
  config: Config;
  /** Validate every response against the contract (test mode). */
  validateResponses: boolean;
  /** The object each single-object write changes, for If-Match (src/http/conditional.ts). */
  objects: ObjectsOfWrites;
  /** The feed entries of each write derived from its reply (each resource's declarations, src/resources/index.ts). */
  emitters: Partial<Record<OperationId, Emitter>>;
  /** Each feed resource's read of objects by id (EmitContext.read). */
  reads: Partial<Record<FeedResource, ReadInOrder>>;
  /** The writes whose handlers record their own entries (ChangeCollector.add). */
  recordedByHandler: ReadonlySet<OperationId>;
  /**
   * An older API version's operations: its contract (requests are routed and validated, replies
   * checked, by it) and the moves of its requests up to the newest version and of the replies
   * down (src/versions/). Absent: the newest version, as the handlers are written.
   */
  version?: { contract: unknown; moves: VersionMoves };
}

const isWrite = (method: string) => method !== 'GET' && method !== 'HEAD';

const JSON_TYPE = 'application/json; charset=utf-8';

/** A reply body as a value (JSON built by PostgreSQL arrives as text or parts), parsed once per run. */
export function valueOf(run: Run, body: unknown): unknown {
  if (typeof body !== 'string' && !(body instanceof JsonParts)) return body;
  if (run.parsed?.body !== body) run.parsed = { body, value: JSON.parse(typeof body === 'string' ? body : body.text()) };
  return run.parsed.value;
}

/**
 * The steps of one operation, and its handler: what runs between openapi-backend's validation of
 * a request (src/http/backend.ts) and its answer. `api` is the contract's backend (what each
 * operation declares, its response validators).
 */
export function operationSteps(api: OpenAPIBackend, deps: OperationDeps, handlers: Record<string, AnyHandler>) {
  /** An older API version's entity tags (conditional.ts: etagAtVersion); undefined at the newest, whose tags are the objects' digests. */
  const tagAt = deps.version && etagAtVersion(deps.version.moves.version);

  /** The context a handler is called with, on the run's database handle. */
  const handlerContext = (
    run: Run,
    operationId: OperationId,
    params = run.c.request.params ?? {},
    query = run.c.request.query ?? {},
    body = run.c.request.requestBody,
  ) => ({
    operationId,
    db: run.trx ?? deps.db,
    changes: run.changes ?? NO_CHANGES,
    caller: run.caller,
    params,
    query,
    body,
    rejected: run.rejected,
    config: deps.config,
    req: run.req,
    res: run.res,
  });

  /** The reply: validated against the contract in test mode, then sent (a page in parts as it comes). */
  const reply: Step = async (run, next) => {
    const { res, operationId } = run;
    const answer = await next();
    if (!deps.validateResponses && (answer.body instanceof JsonStream || answer.body instanceof JsonParts)) {
      setStatusAndHeaders(res, answer);
      res.setHeader('Content-Type', JSON_TYPE);
      await (answer.body instanceof JsonStream ? sendParts(res, answer.body.parts()) : sendWhole(res, answer.body.parts));
      return answer;
    }
    const text = await jsonText(answer.body);
    if (deps.validateResponses) {
      const result = api.validateResponse(text === '' ? undefined : JSON.parse(text), run.c.operation, answer.status);
      if (result.errors?.length) {
        const detail = result.errors.map((e) => `${e.instancePath || '(root)'} ${e.message}`).join('; ');
        throw new ApiError(500, 'response-contract-violation', 'Response does not match the contract', [
          { message: `${operationId} ${answer.status}: ${detail}` },
        ]);
      }
      recordCoverage(operationId, answer.status);
    }
    setStatusAndHeaders(res, answer);
    if (answer.status === 204 || text === '') {
      res.end();
      return answer;
    }
    res.setHeader('Content-Type', JSON_TYPE);
    // The length, also of a HEAD answer, which sends no body (RFC 9110 9.3.2); compression
    // (http/compression.ts) replaces it when it compresses, and would otherwise send it chunked.
    res.setHeader('Content-Length', Buffer.byteLength(text));
    res.end(text);
    return answer;
  };

  /** An authenticated write: one transaction, its feed entries and object states appended as its last statement (src/feed/append.ts). */
  const transaction: Step = (run, next) =>
    run.caller && isWrite(run.req.method)
      ? writeTransaction(
          deps.db,
          run.caller.organizationId,
          (trx, changes) => {
            run.trx = trx;
            run.changes = changes;
            return next();
          },
          originOf(run.caller, run.req),
        )
      : next();

  /** Idempotency-Key: a repeated request answers the stored reply; a new one stores its reply in the transaction. */
  const idempotencyKey: Step = (run, next) => (run.trx ? idempotent(run.trx, run.caller!.organizationId, run.req, run.c.request.requestBody, next) : next());

  /** If-Match (an operation that declares it): the object as it is, under its row lock, or 412 before the handler runs. */
  const ifMatch =
    (operationId: OperationId): Step =>
    async (run, next) => {
      const tags = ifMatchOf(run.req);
      if (tags === undefined || !run.trx) return next();
      const object = deps.objects[operationId]!;
      const orgId = run.caller!.organizationId;
      const params = run.c.request.params as Record<string, string>;
      const readOperation = (id: OperationId) => handlers[id](handlerContext(run, id, params, {}, undefined));
      await checkIfMatch(
        run.trx,
        orgId,
        tags,
        object,
        () => readObjectOfWrite(object, run.trx!, orgId, params, readOperation, (body) => valueOf(run, body)),
        tagAt,
      );
      return next();
    };

  /** ETag of the object answered (an operation that declares it), or 304 when If-None-Match holds it. */
  const entityTag =
    (etagStatuses: ReadonlySet<number>, ifNoneMatch: boolean): Step =>
    async (run, next) => {
      const answer = await next();
      if (!etagStatuses.has(answer.status)) return answer;
      // A reply whose body is more than the object's read (a webhook endpoint with its new secret) gives its own.
      const newest = answer.headers?.ETag ?? etagOf(valueOf(run, answer.body), run.changes?.formOf);
      const etag = tagAt ? tagAt(newest) : newest;
      if (ifNoneMatch && notModified(run.req, etag)) return { status: 304, headers: { ...answer.headers, ETag: etag } };
      return { ...answer, headers: { ...answer.headers, ETag: etag } };
    };

  /** A write that enters the feed, under its no-op rule: one that changes nothing is undone, records nothing, answers the objects as stored (src/feed/unchanged.ts). */
  const noOpRule: Step = (run, next) =>
    run.trx ? underNoOpRule(run.trx, run.caller!.organizationId, run.changes!, next, (answer) => valueOf(run, answer.body)) : next();

  /** The write's feed entries, derived from its reply by its resource's emitter. */
  const feedEntries =
    (emit: Emitter): Step =>
    async (run, next) => {
      const answer = await next();
      if (answer.status >= 300 || answer.body instanceof JsonStream || !run.changes) return answer;
      const { c } = run;
      const db = run.trx!;
      const organizationId = run.caller!.organizationId;
      const context = {
        db,
        organizationId,
        status: answer.status,
        params: c.request.params ?? {},
        query: c.request.query ?? {},
        input: c.request.requestBody,
        changes: run.changes,
        read: async (resource: FeedResource, ids: string[]) => JSON.parse(await deps.reads[resource]!(db, organizationId, ids)),
      };
      run.changes.add(...(await emit(valueOf(run, answer.body), context)));
      return answer;
    };

  /** An older version's reply, moved down to its shape: every step below answered in the newest. */
  const responseDown = (moves: VersionMoves, operationId: OperationId): Step => {
    // The operation's move of a reply by status (null: it does not move), found at its first reply of that status.
    const movers: (ReturnType<VersionMoves['replyMover']> | undefined)[] = [];
    return async (run, next) => {
      // The query as the caller's version names it (requestUp, below, moves it to the newest names).
      const query = run.c.request.query ?? {};
      const answer = await next();
      if (answer.body === undefined) return answer;
      let move = movers[answer.status];
      if (move === undefined) move = movers[answer.status] = moves.replyMover(operationId, answer.status);
      if (!move) return answer;
      // A feed page kept its entries' texts: moved entry by entry, those that do not move sent as they are.
      const parts = answer.body instanceof JsonParts ? moves.partsDown(operationId, answer.status, answer.body, query) : undefined;
      if (parts) return { ...answer, body: parts };
      const body = answer.body instanceof JsonStream ? await answer.body.text() : answer.body;
      return { ...answer, body: JSON.stringify(move(valueOf(run, body), query)) };
    };
  };

  /** An older version's request (validated by its own contract), moved up to the newest shape the steps below are written for. */
  const requestUp =
    (move: NonNullable<ReturnType<VersionMoves['requestMover']>>): Step =>
    (run, next) => {
      const { query, body } = move(run.c.request.query ?? {}, run.c.request.requestBody);
      run.c.request.query = query as typeof run.c.request.query;
      run.c.request.requestBody = body;
      return next();
    };

  /** Location of a create's object and Link rel="next" of a list page, as the operation declares them (links.ts). */
  const links = replyLinks(
    (id) => api.getOperation(id),
    () => api.getOperations(),
  );
  const replyLinksStep: Step = async (run, next) => links.add(run.operationId, run.req, run.c.request.query ?? {}, await next(), (body) => valueOf(run, body));

  /** The operation's handler, the last step: it answers. */
  const handler =
    (operationId: OperationId): Step =>
    (run) =>
      handlers[operationId](handlerContext(run, operationId));

  /**
   * Every operation's steps, in the order they run (one line each, with its reason), read top to
   * bottom like the request's pipeline (pipeline.ts): a step does its part, then the steps below
   * it, then its part with their reply. Steps an operation does not declare (If-Match, ETag) or
   * that are not its kind (the feed's, for a write that does not enter the feed) are left out of
   * its list when the service starts; a read runs none of the write's.
   *
   * Api-Version (dated versions of the contract, src/versions/): two lines of this list, right below
   * the Idempotency-Key, in an older version's backend only: the response down to the caller's
   * version, then the request up to the newest shape (If-Match, the ETag, the feed and the handler
   * see the newest shape only, so one object has one feed entry whatever the caller's version).
   */
  function stepsOf(operationId: OperationId): Step[] {
    const operation = api.getOperation(operationId);
    const {
      etagStatuses,
      ifMatch: declaresIfMatch,
      ifNoneMatch,
    } = operation ? conditionsOf(operation) : { etagStatuses: new Set<number>(), ifMatch: false, ifNoneMatch: false };
    if (declaresIfMatch && !deps.objects[operationId])
      throw new Error(`${operationId} declares If-Match but OBJECT_WRITES does not say which object it writes`);
    const emit = deps.emitters[operationId];
    const entersFeed = !!emit || deps.recordedByHandler.has(operationId);
    const moves = deps.version?.moves;
    const moveUp = moves?.requestMover(operationId);
    const steps: (Step | false)[] = [
      // The reply, after everything below has answered (and a write has committed): checked against the contract in test mode, sent.
      reply,
      // An authenticated write runs in one transaction whose feed entries are its last statement: a change and its entry commit together.
      transaction,
      // Idempotency-Key, inside the transaction: a retried write is answered once, and its stored reply commits with the write.
      idempotencyKey,
      // An older API version: its reply moved down to its shape, after everything below answered in the newest (the stored Idempotency-Key reply is the one the caller got).
      !!moves && responseDown(moves, operationId),
      // An older API version: its request moved up to the newest shape, so If-Match, the ETag, the feed and the handler see one shape only (an operation none of whose request differs has no such step).
      !!moveUp && requestUp(moveUp),
      // Location of a created object, Link rel="next" of a list page: inside the key, so a replayed create carries them too.
      links.applies(operationId) && replyLinksStep,
      // If-Match, before the handler and inside the key (a replay is replayed, not refused), on the object's row lock.
      declaresIfMatch && ifMatch(operationId),
      // ETag or 304, of the reply as the steps below leave it (after the no-op rule: an unchanged object keeps its tag).
      etagStatuses.size > 0 && entityTag(etagStatuses, ifNoneMatch),
      // The feed's no-op rule around the handler and its entries: a write that changes nothing is undone and records nothing.
      entersFeed && noOpRule,
      // The feed entries of the reply (the object states follow from them, in the append), when the resource derives them.
      !!emit && feedEntries(emit),
      // The handler.
      handler(operationId),
    ];
    return steps.filter((s): s is Step => !!s);
  }

  /** The operation: its steps run in order, each calling the next. */
  return (operationId: OperationId) => {
    const steps = stepsOf(operationId);
    return async (c: Context, req: Request, res: Response, rejected: RejectedElements): Promise<void> => {
      const run: Run = { operationId, c, req, res, caller: contextOf(req).caller, rejected };
      const at = (i: number): Promise<Reply> => steps[i](run, () => at(i + 1));
      await at(0);
    };
  };
}

/** The reply's status and its own headers. */
function setStatusAndHeaders(res: Response, reply: Reply): void {
  res.status(reply.status);
  // Link is added to (the pipeline's deprecation links, src/versions/usage.ts, come first); the others are set.
  for (const [k, v] of Object.entries(reply.headers ?? {})) {
    if (k === 'Link') res.append(k, v);
    else res.setHeader(k, v);
  }
}
