import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { VERSIONS } from '../../api/versions/index';
import { GENERATED_DIR } from '../paths';
import type { Contract, FieldChange, JsonObject, VersionChange, VersionDefinition } from './types';
import { transformsOf } from './derive';
import { SchemaWalker } from './walk';
import { CHANGED_FIELDS, entryDown, FEED_SCHEMAS, keepChangedOneOf, namesOf } from './feed';

/** The newest version: what api/ describes and the handlers are written at. */
export const NEWEST = VERSIONS[0].version;

export type VersionStatus = 'current' | 'supported' | 'deprecated';

/** A version's status: the newest is `current`; one with a deprecation date is `deprecated`. */
export const statusOf = (v: VersionDefinition): VersionStatus => (v.version === NEWEST ? 'current' : v.deprecatedAt ? 'deprecated' : 'supported');

/** Whether requests may run at the version: a dated version, not past its sunset. */
export function isServed(v: VersionDefinition | undefined, now = Date.now()): v is VersionDefinition {
  return !!v && (!v.sunsetAt || Date.parse(v.sunsetAt + 'T00:00:00Z') > now);
}

export const versionNamed = (version: string): VersionDefinition | undefined => VERSIONS.find((v) => v.version === version);

/** The versions requests may run at, newest first. */
export const servedVersions = (now = Date.now()): VersionDefinition[] => VERSIONS.filter((v) => isServed(v, now));

/** The version that replaced `v` (null for the newest). */
export const successorOf = (v: VersionDefinition): VersionDefinition | null => VERSIONS[VERSIONS.indexOf(v) - 1] ?? null;

const contracts = new Map<string, Contract>();

/** A version's bundled contract (generated/, or generated/versions/<version>/ for an older one), read once when an older version first needs it. */
export function contractOf(version: string): Contract {
  let contract = contracts.get(version);
  if (!contract) {
    const dir = version === NEWEST ? GENERATED_DIR : join(GENERATED_DIR, 'versions', version);
    contract = JSON.parse(readFileSync(join(dir, 'openapi.json'), 'utf8')) as Contract;
    contracts.set(version, contract);
  }
  return contract;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

function operationsById(doc: Contract): Map<string, any> {
  const out = new Map<string, any>();
  for (const item of Object.values(doc.paths)) for (const m of METHODS) if (item[m]?.operationId) out.set(item[m].operationId, item[m]);
  return out;
}

/** One step between two neighbouring versions: the newer's changes, with both contracts. */
interface Step {
  changes: VersionChange[];
  older: Contract;
  newer: Contract;
  up: SchemaWalker;
  down: SchemaWalker;
  olderOps: Map<string, any>;
  newerOps: Map<string, any>;
}

const json = (content: any) => content?.['application/json']?.schema;

/** The schema name of a reply's objects (`Order` for an Order or an array of them). */
function objectSchemaName(schema: any): string | undefined {
  const ref: string | undefined = schema?.$ref ?? schema?.items?.$ref;
  return ref?.split('/').pop();
}

/**
 * How requests and replies move between one older version and the newest: up across each
 * version's changes, oldest first; down newest first. The newest version has no moves at all
 * (`movesOf` answers undefined): its requests cost nothing more.
 */
export class VersionMoves {
  private readonly steps: Step[];
  /** Each operation's query parameters that name fields of feed entries' `changedFields` (CHANGED_FIELDS in its contract). */
  private readonly changedFieldParameters: Map<string, string[]>;
  /** This version's operations, and its objects' properties that name such fields (a webhook endpoint's `fields`): up to the newest names in bodies, down in replies. */
  private readonly ops: Map<string, any>;
  private readonly namesUp: SchemaWalker;
  private readonly namesDown: SchemaWalker;

  constructor(readonly version: string) {
    const at = VERSIONS.findIndex((v) => v.version === version);
    const contract = contractOf(version);
    this.changedFieldParameters = changedFieldParametersOf(contract);
    this.ops = operationsById(contract);
    const marked = changedFieldPropertiesOf(contract);
    this.namesUp = new SchemaWalker(
      contract,
      renamingIn(marked, (names) => this.changedFieldsUp(names)),
    );
    // Feed entries too: an entry's `data` is its object's read (a webhook endpoint's `fields`).
    this.namesDown = new SchemaWalker(contract, withFeedEntries(renamingIn(marked, (names) => this.changedFieldsDown(names))));
    this.steps = [];
    for (let i = at; i > 0; i--) {
      const older = contractOf(VERSIONS[i].version);
      const newer = contractOf(VERSIONS[i - 1].version);
      const changes = VERSIONS[i - 1].changes;
      this.steps.push({
        changes,
        older,
        newer,
        up: new SchemaWalker(older, transformsOf(changes, 'up')),
        down: new SchemaWalker(newer, withFeedEntries(transformsOf(changes, 'down'))),
        olderOps: operationsById(older),
        newerOps: operationsById(newer),
      });
    }
  }

  /** A request body in this version's shape, moved to the newest. */
  bodyUp(operationId: string, body: unknown): unknown {
    let v = this.namesUp.walk(body, json(this.ops.get(operationId)?.requestBody?.content));
    for (const s of this.steps) v = s.up.walk(v, json(s.olderOps.get(operationId)?.requestBody?.content));
    return v;
  }

  /**
   * A list's query in this version's names, moved to the newest: filter keys (`field`,
   * `field_<op>`) and `orderBy` name fields of the list's objects.
   */
  queryUp(operationId: string, query: Record<string, any>): Record<string, any> {
    let q = query;
    for (const p of this.changedFieldParameters.get(operationId) ?? []) if (q[p] !== undefined) q = { ...q, [p]: this.changedFieldsUp(namesOf(q[p])) };
    // Most requests name no field in their query (a single read): nothing below applies.
    if (q.orderBy === undefined && q.filter === undefined) return q;
    for (const fields of this.listFieldChanges(operationId)) {
      if (!fields.length) continue;
      const newer = (field: string) => fields.reduce<string | null>((n, f) => (n === null ? null : f.newerName(n)), field);
      q = { ...q };
      if (typeof q.orderBy === 'string') q.orderBy = newer(q.orderBy) ?? q.orderBy;
      if (q.filter && typeof q.filter === 'object') {
        q.filter = Object.fromEntries(
          Object.entries(q.filter).map(([key, value]) => {
            const [, field, op] = /^([A-Za-z0-9]+)(_.*)?$/.exec(key) ?? [undefined, key, ''];
            return [(newer(field!) ?? field) + (op ?? ''), value];
          }),
        );
      }
    }
    return q;
  }

  private readonly listFields = new Map<string, FieldChange[][]>();

  /** Per step, the field changes of the objects an operation's 200 lists or reads (what its filters and orderBy name): worked out once per operation. */
  private listFieldChanges(operationId: string): FieldChange[][] {
    let perStep = this.listFields.get(operationId);
    if (!perStep) {
      perStep = this.steps.map((s) => {
        const name = objectSchemaName(json(s.olderOps.get(operationId)?.responses?.['200']?.content));
        return s.changes.flatMap((c) => c.fields).filter((f) => f.schema === name);
      });
      this.listFields.set(operationId, perStep);
    }
    return perStep;
  }

  private readonly moving = new Map<string, boolean>();

  /** Whether a reply of the operation with the status can differ at this version (else it goes out as the handler wrote it): worked out once per operation and status. */
  replyMoves(operationId: string, status: number): boolean {
    const key = `${operationId} ${status}`;
    let moves = this.moving.get(key);
    if (moves === undefined) {
      moves =
        this.steps.some((s) => s.down.touches(json(s.newerOps.get(operationId)?.responses?.[String(status)]?.content))) ||
        this.namesDown.touches(json(this.ops.get(operationId)?.responses?.[String(status)]?.content));
      this.moving.set(key, moves);
    }
    return moves;
  }

  /**
   * A reply in the newest shape, moved down to this version; `query`: the request's, as this
   * version named it. A feed page asked for entries that changed some fields keeps those whose
   * `changedFields` at this version name one: the page read by the newest names those fields come
   * from (queryUp) also holds entries whose change this version does not see as one of them.
   */
  replyDown(operationId: string, status: number, body: unknown, query: Record<string, unknown> = {}): unknown {
    let v = body;
    for (let i = this.steps.length - 1; i >= 0; i--) {
      const s = this.steps[i];
      v = s.down.walk(v, json(s.newerOps.get(operationId)?.responses?.[String(status)]?.content));
    }
    v = this.namesDown.walk(v, json(this.ops.get(operationId)?.responses?.[String(status)]?.content));
    if (status === 200)
      for (const p of this.changedFieldParameters.get(operationId) ?? []) if (query[p] !== undefined) v = keepChangedOneOf(v, namesOf(query[p]));
    return v;
  }

  /**
   * Field names of feed entries' `changedFields` at this version, as the newest names the fields
   * they follow from: a renamed field by its new name, a retired one by the fields it is computed
   * from (FieldChange.newerSources), through every version's changes of a feed resource's schema.
   * Each name also stays as it is, for the resources those changes did not touch.
   */
  changedFieldsUp(names: string[]): string[] {
    const feedSchemas = new Set(Object.values(FEED_SCHEMAS));
    let current = new Set(names);
    for (const s of this.steps) {
      const changed = s.changes.flatMap((c) => c.fields).filter((f) => feedSchemas.has(f.schema));
      if (!changed.length) continue;
      const next = new Set(current);
      for (const schema of new Set(changed.map((f) => f.schema)))
        for (const name of current)
          for (const source of changed.filter((f) => f.schema === schema).reduce((ns, f) => ns.flatMap((n) => f.newerSources(n)), [name])) next.add(source);
      current = next;
    }
    return [...current];
  }

  /**
   * Field names as the newest version names them (a webhook endpoint's stored `fields`, as
   * changedFieldsUp made them and shownAtNewest shows them), as this version names them: a renamed
   * field by its name here, and a field only this version has (a retired one) when every field it
   * follows from is among them (every change of it changes one of those).
   */
  changedFieldsDown(names: string[]): string[] {
    const given = new Set(names);
    const out = new Set<string>();
    for (const name of names) {
      let n = name;
      for (const schema of new Set(Object.values(FEED_SCHEMAS))) n = this.fieldName(schema, n) ?? n;
      out.add(n);
    }
    for (const [name, sources] of this.ownNames()) if (sources.every((s) => given.has(s))) out.add(name);
    return [...out];
  }

  private own?: Map<string, string[]>;

  /** The top-level fields of feed resources' objects only this version (not the newest) has, each with the newest fields it follows from. */
  ownNames(): Map<string, string[]> {
    if (!this.own) {
      this.own = new Map();
      const older = contractOf(this.version).components.schemas;
      const newest = contractOf(NEWEST).components.schemas;
      for (const schema of new Set(Object.values(FEED_SCHEMAS)))
        for (const name of Object.keys(older[schema]?.properties ?? {})) {
          if (name in (newest[schema]?.properties ?? {})) continue;
          const sources = this.changedFieldsUp([name]).filter((n) => n !== name);
          if (sources.length) this.own.set(name, sources);
        }
    }
    return this.own;
  }

  /**
   * An object of a component schema (`Order`: a feed entry's data), moved down to this version as
   * a reply holding it is (replyDown): across each version's changes, then its changed-field names.
   */
  objectDown(schema: string, value: JsonObject): JsonObject {
    const ref = { $ref: `#/components/schemas/${schema}` };
    let v = value;
    for (let i = this.steps.length - 1; i >= 0; i--) v = this.steps[i].down.walk(v, ref) as JsonObject;
    return this.namesDown.walk(v, ref) as JsonObject;
  }

  /** Whether objects of a component schema differ at this version. */
  schemaMoves(schema: string): boolean {
    const ref = { $ref: `#/components/schemas/${schema}` };
    return this.steps.some((s) => s.down.touches(ref)) || this.namesDown.touches(ref);
  }

  /** A feed entry (as GET /changes and webhooks carry it) in the newest shape, moved down to this version. */
  entryDown(entry: JsonObject): JsonObject {
    return this.objectDown('ChangeEntry', entry);
  }

  /** A top-level field name of a component schema in the newest version, as this version names it (null: it has none). */
  fieldName(schema: string, name: string): string | null {
    let n: string | null = name;
    for (let i = this.steps.length - 1; i >= 0 && n !== null; i--)
      for (const f of this.steps[i].changes.flatMap((c) => c.fields)) if (f.schema === schema && n !== null) n = f.olderName(n);
    return n;
  }
}

/** Each operation's query parameters the contract marks as naming changed fields of feed entries (CHANGED_FIELDS). */
function changedFieldParametersOf(doc: Contract): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [operationId, op] of operationsById(doc)) {
    const names = (op.parameters ?? []).filter((p: any) => p?.in === 'query' && p[CHANGED_FIELDS] === true).map((p: any) => p.name as string);
    if (names.length) out.set(operationId, names);
  }
  return out;
}

/** Each component schema's properties the contract marks as naming changed fields of feed entries (CHANGED_FIELDS: a webhook endpoint's `fields`). */
function changedFieldPropertiesOf(doc: Contract): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [schema, s] of Object.entries<any>(doc.components.schemas)) {
    const names = Object.entries<any>(s?.properties ?? {})
      .filter(([, p]) => p?.[CHANGED_FIELDS] === true)
      .map(([name]) => name);
    if (names.length) out.set(schema, names);
  }
  return out;
}

/** Per schema, its marked properties' lists of names moved by `move` (null and absent stay). */
function renamingIn(marked: Map<string, string[]>, move: (names: string[]) => string[]): Map<string, (value: JsonObject) => JsonObject> {
  const out = new Map<string, (value: JsonObject) => JsonObject>();
  for (const [schema, properties] of marked)
    out.set(schema, (value) => {
      let v = value;
      for (const p of properties) if (Array.isArray(v[p])) v = { ...v, [p]: move(v[p] as string[]) };
      return v;
    });
  return out;
}

/** The objects' moves down, and the feed entry's (ChangeEntry: its data by its resource's schema). */
function withFeedEntries(objectDown: Map<string, (value: JsonObject) => JsonObject>): Map<string, (value: JsonObject) => JsonObject> {
  return new Map([...objectDown, ['ChangeEntry', entryDown(objectDown)]]);
}

const moves = new Map<string, VersionMoves>();

/** The moves of a served older version; undefined for the newest. */
export function movesOf(version: string): VersionMoves | undefined {
  if (version === NEWEST) return undefined;
  let m = moves.get(version);
  if (!m) moves.set(version, (m = new VersionMoves(version)));
  return m;
}

/**
 * How an object of a feed resource is moved down to an API version (its single read there), or
 * undefined when the version reads it as the newest does (the newest version, or a resource no
 * version changed): reconciliation digests at that version.
 */
export function restateAt(version: string | undefined, resource: string): ((data: JsonObject) => JsonObject) | undefined {
  const moves = version === undefined ? undefined : movesOf(version);
  const schema = FEED_SCHEMAS[resource];
  if (!moves || !schema || !moves.schemaMoves(schema)) return undefined;
  return (data) => moves.objectDown(schema, data);
}

/**
 * Field names of feed entries' `changedFields` given at a version (a webhook endpoint's `fields`
 * at its `apiVersion`), as the newest names them: VersionMoves.changedFieldsUp, the names
 * themselves at the newest.
 */
export const changedFieldsUpAt = (version: string, names: string[]): string[] => movesOf(version)?.changedFieldsUp(names) ?? names;

/**
 * Stored field names (changedFieldsUp's) as the newest version shows them: without the names only
 * an older version has whose newest fields are all among them (at 2026-06-01 `isProjectPO`, kept
 * beside `type`). They stay stored: changedFieldsUp keeps every given name for the resources no
 * version changed, which may have a field of that name.
 */
export function shownAtNewest(names: string[]): string[] {
  const given = new Set(names);
  const redundant = (name: string) =>
    VERSIONS.slice(1).some((v) => {
      const sources = movesOf(v.version)!.ownNames().get(name);
      return sources !== undefined && sources.every((s) => given.has(s));
    });
  return names.filter((n) => !redundant(n));
}

/** A webhook body (WebhookEvent, its `data` the feed entry) at an API version: the body itself at the newest. */
export function webhookBodyAt(version: string, body: string): string {
  const moves = movesOf(version);
  if (!moves) return body;
  const event = JSON.parse(body) as JsonObject;
  return JSON.stringify({ ...event, data: moves.entryDown(event.data as JsonObject) });
}
