// The shapes every version-change module (api/versions/) and the version machinery share. This
// file and its neighbours are also bundled by scripts/generate.mjs (esbuild) and may be run by Node's type stripping, so
// they import one another with their `.ts` names and use only erasable TypeScript.

/** A JSON object as the service sends or takes it. */
export type JsonObject = Record<string, unknown>;

/** The parts of an OpenAPI document the version machinery reads and edits. */
export interface Contract {
  info?: Record<string, unknown>;
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, any>; examples?: Record<string, any>; [kind: string]: any };
  [key: string]: unknown;
}

/**
 * One change of one component schema between a version and the one before it: how the older
 * contract describes the schema, and how its objects move across the change.
 */
export interface FieldChange {
  /** The component schema (its name in components.schemas) whose objects change. */
  schema: string;
  /** Edits the newer contract's schema (a copy) into the older one's. */
  contract(schema: any): void;
  /** An object in the older shape (a request body) moved to the newer shape. */
  up(value: JsonObject): JsonObject;
  /** An object in the newer shape (a reply, a feed entry's data, an example) moved to the older shape. */
  down(value: JsonObject): JsonObject;
  /** A top-level field name of the newer shape to the older's (changedFields, previous), null when the older has none. */
  olderName(name: string): string | null;
  /** The older shape's field name to the newer's (filters, orderBy), null when the newer has none. */
  newerName(name: string): string | null;
  /**
   * The newer shape's fields whose change changes the older shape's field `name` (a feed filter on
   * changed fields, GET /changes?fields=): itself when this change does not touch it, its new name
   * when renamed, the fields it is computed from when retired.
   */
  newerSources(name: string): string[];
  /** One line for the changelog. */
  summary: string;
}

/** A version-change module: everything one dated version changed against the version before it. */
export interface VersionChange {
  /** What it is, for the changelog's heading (one line). */
  title: string;
  /** Why, for the changelog (one paragraph). */
  description: string;
  fields: FieldChange[];
}

/** One dated version: newest first in the list (api/versions/index.ts). */
export interface VersionDefinition {
  /** The date naming it, YYYY-MM-DD. */
  version: string;
  /** When it was (or is to be) released. */
  releasedAt: string;
  /** Set when its successor was released: requests at it answer the Deprecation header. */
  deprecatedAt?: string;
  /** At least 12 months after deprecatedAt: from then on requests at it are refused. */
  sunsetAt?: string;
  /** The changes this version made against the one before it (none for the first). */
  changes: VersionChange[];
}
