import type { Request, Response } from 'express';
import type { ResourceDef } from '../db/resource';
import type { Emitter, ReadInOrder } from '../feed/emit';
import type { FeedResource } from '../feed/change-types';
import type { ObjectsOfWrites } from '../http/conditional';
import type { OperationId } from '../http/handler';

type ByOperation<T> = Partial<Record<OperationId, T>>;

/**
 * What one resource says about its operations besides their handlers, in its own folder
 * (`src/resources/<resource>/declarations.ts`). The service's tables of these facts (the feed's
 * emitters, If-Match's objects, the batches' lists, the token endpoint's own formats, the
 * reconciled resources) are built from every resource's declarations (src/resources/index.ts):
 * no table elsewhere names a resource.
 */
export interface ResourceDeclarations {
  /** The feed entries each write emits, derived from its reply (src/feed/emit.ts). */
  feed?: ByOperation<Emitter>;
  /**
   * Writes whose handlers record their own entries with `ctx.changes.add` (one request changes an
   * object and what it holds, which the reply alone cannot tell): what each records.
   */
  feedByHandler?: ByOperation<string>;
  /** Writes that change no resource of the contract, so emit nothing: why. */
  feedExcluded?: ByOperation<string>;
  /**
   * The resource's feed resources that GET /reconciliation/{resource} answers, each with the
   * ResourceDef its single read (or, for those read only in lists, its list) builds the object
   * with: the backfill and the database captures build states with the same definition, so a
   * state is the object as it is read (src/resources/reconciliation/sources.ts). A feed resource
   * whose objects have no id of their own (`order_tag`) or that is the integration's own
   * configuration rather than data it copies (`webhook_endpoint`) declares none.
   */
  reconciled?: Partial<Record<FeedResource, ResourceDef>>;
  /** The objects of the resource's feed resources as their reads return them (EmitContext.read). */
  reads?: Partial<Record<FeedResource, ReadInOrder>>;
  /** The object each single-object write changes, for If-Match (src/http/conditional.ts). */
  objects?: ObjectsOfWrites;
  /**
   * The batches, by the body property that holds their list: elements of it that the contract's
   * schema rejects are handed to the operation (`rejected`), which names them in one 400 with the
   * elements its own checks reject, one line `Position <n>: ...` each (db/batch.ts).
   */
  batchLists?: ByOperation<string>;
  /** Operations that answer a request the contract's validation refuses in their own format. */
  validationFail?: ByOperation<(req: Request, res: Response, errors: readonly { keyword: string; params?: Record<string, unknown> }[]) => void>;
  /** Operations that answer their client errors in their own format (src/http/problem.ts). */
  ownProblemFormats?: ByOperation<(res: Response, detail: string) => void>;
}
