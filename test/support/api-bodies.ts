/** Request and response bodies of a contract operation (generated/api-types.ts), for the typed test client. */

/** What every test response has; `Status` and `Body` are narrowed per documented status by the typed client. */
export interface ApiResponse<Body = any, Status extends number = number> {
  status: Status;
  headers: Headers;
  body: Body;
  text: string;
}

type RequestContent<Op> = Op extends { requestBody?: infer R } ? (R extends { content: infer C } ? C : never) : never;

/** The operation's JSON request body; never when it takes none (or only a form, like POST /oauth2/token). */
export type JsonBody<Op> = RequestContent<Op> extends { 'application/json': infer B } ? B : never;

/** True when the operation's body is not JSON (a form): then the request is sent with `raw` and `contentType`. */
export type TakesRawBody<Op> = [RequestContent<Op>] extends [never] ? false : [JsonBody<Op>] extends [never] ? true : false;

export type BodyRequired<Op> = Op extends { requestBody: object } ? true : false;

/** The parsed body a documented response has: its JSON (or problem+json) schema, or the text of another type or none. */
type ResponseBody<R> = R extends { content: infer C }
  ? C extends { 'application/json': infer B }
    ? B
    : C extends { 'application/problem+json': infer B }
      ? B
      : string
  : string;

type Responses<Op> = Op extends { responses: infer R } ? R : never;

/**
 * One member per documented status, `status` as its literal: `if (res.status === 200)`, `expectStatus(res, 200)`
 * or `problemOf(res, 404)` narrow `body` to that status's schema. A `default` response stands for any status.
 */
export type OperationResponse<Op> = Op extends unknown
  ? { [S in keyof Responses<Op>]: ApiResponse<ResponseBody<Responses<Op>[S]>, S extends number ? S : number> }[keyof Responses<Op>]
  : never;

/** The members of the response union R that can have status S (an untyped response keeps its `any` body). */
export type AtStatus<R, S extends number> = R extends { status: infer T } ? (S extends T ? R & { status: S } : never) : never;
