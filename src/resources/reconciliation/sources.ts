import { keepsStatesOf, type ResourceDef } from '../../db/resource';
import type { FeedResource } from '../../feed/change-types';

/**
 * The resources GET /reconciliation/{resource} answers (every resource of the feed whose objects
 * have their own id and their own read), each with the ResourceDef its read builds the object
 * with: the backfill builds states with the same definition, so a backfilled state is the object
 * as it is read.
 *
 * Each resource declares its own (ResourceDeclarations.reconciled, in its folder); the table is
 * gathered from the declarations by src/resources/index.ts (RECONCILED) and handed to the
 * reconciliation's handler, backfill and captures, so this folder names no resource and imports
 * none: a resource added to the feed adds one line to its own declarations.
 */
export interface ReconciledSources {
  /** Each reconciled resource's ResourceDef. */
  readonly defs: Partial<Record<FeedResource, ResourceDef>>;
  /** The reconciled resources, by name. */
  readonly resources: readonly FeedResource[];
}

export function reconciledSources(defs: Partial<Record<FeedResource, ResourceDef>>): ReconciledSources {
  // A single read with this definition may take its entity tag from the state (oneByIdOrCodeWithDigest).
  for (const [resource, def] of Object.entries(defs)) keepsStatesOf(resource, def!);
  return { defs, resources: (Object.keys(defs) as FeedResource[]).sort() };
}

/** The ResourceDef of a reconciled resource; undefined for any other name (`order_tag`, a typo). */
export function reconciledDef(sources: ReconciledSources, resource: string): ResourceDef | undefined {
  return Object.prototype.hasOwnProperty.call(sources.defs, resource) ? sources.defs[resource as FeedResource] : undefined;
}
