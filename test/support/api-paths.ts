import type { paths } from '../../generated/api-types';

/**
 * Type-level routing of concrete request paths (`/jobs/J-1/phases?limit=5`) to the contract's operations
 * (`paths['/jobs/{…}/phases']['get']`), for the typed test client (client.ts). Only the shape of a
 * template counts, never the names of its variables: a `{…}` segment matches any one non-empty segment.
 */
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

type Split<S extends string> = S extends `${infer Head}/${infer Tail}` ? [Head, ...Split<Tail>] : [S];
type Segments<P extends string> = P extends `/${infer Rest}` ? Split<Rest> : never;
type Route<P extends string> = P extends `${infer Path}?${string}` ? Path : P;

/**
 * The templates that have an operation for each method, as segment tuples grouped by their first segment:
 * computed once, so a call only compares its path with the few templates under the same first segment.
 */
type Templates = {
  [M in Method]: {
    [K in keyof paths as paths[K] extends Record<M, object> ? K : never]: K extends string ? Segments<K> : never;
  };
};
type First<T> = T extends [infer H, ...unknown[]] ? H : never;
type ByFirst = {
  [M in Method]: {
    [F in First<Templates[M][keyof Templates[M]]> & string]: { [K in keyof Templates[M] as First<Templates[M][K]> extends F ? K : never]: Templates[M][K] };
  };
};

/**
 * A concrete segment matches a template variable when not empty, and a literal segment when equal; the last
 * one may also be the literal followed by free text (`/orders${query}`, the query string in a variable).
 */
type Matches<C, T> = C extends [infer c, ...infer cs]
  ? T extends [infer t, ...infer ts]
    ? t extends `{${string}}`
      ? c extends ''
        ? false
        : Matches<cs, ts>
      : [c] extends [t]
        ? Matches<cs, ts>
        : [cs, ts, c] extends [[], [], `${t & string}${string}`]
          ? true
          : false
    : false
  : T extends []
    ? true
    : false;

/** The groups a first segment belongs to: its own, or for `/orders${query}` those whose segment it starts with. */
type Groups<M extends Method, F> = F extends keyof ByFirst[M]
  ? F
  : { [G in keyof ByFirst[M]]: F extends `${G & string}${string}` ? G : never }[keyof ByFirst[M]];

type MatchIn<M extends Method, G extends keyof ByFirst[M], C> = G extends unknown
  ? { [K in keyof ByFirst[M][G]]: Matches<C, ByFirst[M][G][K]> extends true ? K : never }[keyof ByFirst[M][G]]
  : never;

/**
 * The template of `paths` the concrete path P (query string allowed) stands for, for method M; never when
 * none. A path that is itself a template key (`/jobs/batch`, `/invoices/paid`) is that template alone,
 * not also the variable one beside it (`/jobs/{…}`).
 */
export type TemplateOf<M extends Method, P extends string> = P extends unknown
  ? Route<P> extends keyof Templates[M]
    ? Route<P>
    : Route<P> extends `/${string}`
      ? MatchIn<M, Groups<M, First<Segments<Route<P>>>>, Segments<Route<P>>>
      : never
  : never;

/** The operation(s) a request with method M to the concrete path P reaches. */
export type OperationOf<M extends Method, P extends string> =
  TemplateOf<M, P> extends infer K extends keyof paths ? (K extends unknown ? paths[K][M] : never) : never;

/** P itself when some template has an operation for M; otherwise a type no string is assignable to, which names the fault. */
export type CheckedPath<M extends Method, P extends string> = [TemplateOf<M, P>] extends [never]
  ? { error: `no ${Uppercase<M>} operation in the contract matches this path`; path: P }
  : P;

type Pattern<K extends string> = K extends `${infer Head}{${string}}${infer Tail}` ? `${Head}${string}${Pattern<Tail>}` : K;

/**
 * Any path with an operation for M, as a pattern (`/jobs/${string}/phases`, with or without a query): the
 * type of a helper's parameter that takes a path its caller chooses, so the caller's string is checked.
 */
export type PathOf<M extends Method> = {
  [K in keyof Templates[M]]: K extends string ? Pattern<K> | `${Pattern<K>}?${string}` : never;
}[keyof Templates[M]];
