import type { Request, Response } from 'express';
import type { components, operations } from '../../generated/api-types';
import type { Db } from '../db/knex';
import type { RejectedElements } from '../db/batch';
import type { Json, JsonParts, JsonStream } from '../db/json';
import type { Caller } from '../auth/caller';
import type { ChangeCollector } from '../feed/append';
import type { ApiError } from '../errors';
import type { Config } from '../config';

/**
 * Handlers are typed from the generated contract: their inputs are the operation's parameters and
 * body, their reply one of its success statuses with that status's body (as a value or as JSON
 * built by PostgreSQL). The handler map must cover every operationId (see resources/index.ts).
 */
export type OperationId = keyof operations;
export type Schemas = components['schemas'];
export type Schema<Name extends keyof Schemas> = Schemas[Name];

type Op<Id extends OperationId> = operations[Id];
type Params<Id extends OperationId> = Op<Id>['parameters'];

export type PathParams<Id extends OperationId> = Params<Id> extends { path: infer P } ? (P extends undefined ? never : P) : never;
export type QueryParams<Id extends OperationId> = Params<Id> extends { query?: infer Q } ? NonNullable<Q> : never;
export type RequestBody<Id extends OperationId> =
  Op<Id> extends { requestBody: { content: { 'application/json': infer B } } }
    ? B
    : Op<Id> extends { requestBody?: { content: { 'application/json': infer B } } }
      ? B | undefined
      : Op<Id> extends { requestBody: { content: { 'application/x-www-form-urlencoded': infer F } } }
        ? F
        : undefined;

type Responses<Id extends OperationId> = Op<Id>['responses'];
/** Statuses a handler returns itself: those with a JSON body (problem+json errors are thrown instead). */
type ReplyStatus<Id extends OperationId> = {
  [S in keyof Responses<Id>]: Responses<Id>[S] extends { content: { 'application/json': unknown } } ? S : S extends 204 ? S : never;
}[keyof Responses<Id>];
export type ResponseBody<Id extends OperationId, S extends keyof Responses<Id>> = Responses<Id>[S] extends {
  content: { 'application/json': infer B };
}
  ? B
  : never;

export type Reply<Id extends OperationId> = {
  [S in ReplyStatus<Id>]: {
    status: S;
    body: ResponseBody<Id, S> | Json<ResponseBody<Id, S>> | JsonStream<ResponseBody<Id, S>> | JsonParts<ResponseBody<Id, S>>;
    headers?: Record<string, string>;
  };
}[ReplyStatus<Id>];

export type { Caller };

export interface Ctx<Id extends OperationId> {
  operationId: Id;
  /** The pool for reads; for an authenticated write, the request's transaction. */
  db: Db;
  /** A write's feed entries, appended as its transaction's last statement (src/feed/append.ts). */
  changes: ChangeCollector;
  /** Set on every operation that requires authentication. */
  caller: Caller;
  params: PathParams<Id>;
  query: QueryParams<Id>;
  body: RequestBody<Id>;
  /**
   * For a batch (BATCH_LISTS, resources/index.ts): the elements of its list the contract's schema
   * rejected, by position, for the operation to report with its own rejections (db/batch.ts
   * checkElements). Empty for every other request.
   */
  rejected: RejectedElements;
  /** The service's settings (src/config.ts), parsed once at start. */
  config: Config;
  req: Request;
  res: Response;
}

export type Handler<Id extends OperationId> = (ctx: Ctx<Id>) => Promise<Reply<Id>>;
export type HandlerMap = { [Id in OperationId]: Handler<Id> };
/** A resource's handlers: a part of the map, checked against the contract. */
export type Handlers<Ids extends OperationId> = { [Id in Ids]: Handler<Id> };

/** A resource's 404 for a path key that names nothing of the caller's (`No tax code matches X.`). */
export type Missing = (key: string) => ApiError;

/** The value a lookup found, or the resource's 404 when it found nothing. */
export function orNotFound<T>(found: T | null | undefined, missing: Missing, key: string): T {
  if (found === undefined || found === null) throw missing(key);
  return found;
}

/** The reply of a read or write of one object: 200 with the object, or the resource's 404. */
export async function okOrNotFound<T>(found: Promise<T | null | undefined>, missing: Missing, key: string): Promise<{ status: 200; body: T }> {
  return { status: 200, body: orNotFound(await found, missing, key) };
}
