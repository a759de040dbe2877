import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { VERSIONS } from '../../api/versions/index';
import { GENERATED_DIR } from '../paths';
import type { Contract, FieldChange, JsonObject, VersionChange, VersionDefinition } from './types';
import { transformsOf } from './derive';
import { SchemaWalker } from './walk';
import { JsonParts } from '../db/json';
import { CHANGED_FIELDS, changedOneOf, entryDown, FEED_SCHEMAS, keepChangedOneOf, namesOf } from './feed';

/** The newest version: what api/ describes and the handlers are written at. */
export const NEWEST = VERSIONS[0].version;

export type VersionStatus = 'current' | 'supported' | 'deprecated';

/** A version's status: the newest is `current`; one with a deprecation date is `deprecated`. */
export const statusOf = (v: VersionDefinition): VersionStatus => (v.version === NEWEST ? 'current' : v.deprecatedAt ? 'deprecated' : 'supported');

/** Whether requests may run at the version: a dated version, not past its sunset. */
export function isServed(v: VersionDefinition | undefined, now = Date.now()): v is VersionDefinition {
  return !!v && (!v.sunsetAt || sunsetOf(v, v.sunsetAt) > now);
}

/** A version's sunset, in ms (asked at every request that names a version): parsed once. */
const sunsets = new Map<VersionDefinition, number>();
function sunsetOf(v: VersionDefinition, sunsetAt: string): number {
  let at = sunsets.get(v);
  if (at === undefined) sunsets.set(v, (at = Date.parse(sunsetAt + 'T00:00:00Z')));
  return at;
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

/** What partsDown reads of a reply's schema (a list's items, a page's one array property). */
interface SchemaNode {
  $ref?: string;
  allOf?: unknown[];
  oneOf?: unknown[];
  anyOf?: unknown[];
  items?: unknown;
  properties?: Record<string, SchemaNode | undefined>;
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

  /**
   * How a request of the operation moves up to the newest (its query by queryUp, its body by
   * bodyUp), or null when none can differ: no body field, query parameter, filter or orderBy of it
   * changed between this version and the newest (a single read at most versions). Worked out once
   * per operation (src/http/operation.ts leaves the step out of such an operation's list).
   */
  requestMover(operationId: string): ((query: Record<string, unknown>, body: unknown) => { query: Record<string, unknown>; body: unknown }) | null {
    const bodyMoves =
      this.namesUp.touches(json(this.ops.get(operationId)?.requestBody?.content)) ||
      this.steps.some((s) => s.up.touches(json(s.olderOps.get(operationId)?.requestBody?.content)));
    const queryMoves = this.changedFieldParameters.has(operationId) || this.listFieldChanges(operationId).some((fields) => fields.length > 0);
    if (!bodyMoves && !queryMoves) return null;
    return (query, body) => ({
      query: queryMoves ? this.queryUp(operationId, query) : query,
      body: bodyMoves ? this.bodyUp(operationId, body) : body,
    });
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

  /**
   * How a reply of the operation with the status moves down to this version (replyDown), or null
   * when it cannot differ (it goes out as the handler wrote it). Worked out once per operation and
   * status, with every step's schema found: the caller keeps it (src/http/operation.ts), and a
   * reply looks nothing up by name.
   */
  replyMover(operationId: string, status: number): ((body: unknown, query: Record<string, unknown>) => unknown) | null {
    const code = String(status);
    const down = this.steps.map((s) => ({ walker: s.down, schema: json(s.newerOps.get(operationId)?.responses?.[code]?.content) }));
    const names = json(this.ops.get(operationId)?.responses?.[code]?.content);
    if (!down.some((d) => d.walker.touches(d.schema)) && !this.namesDown.touches(names)) return null;
    const parameters = status === 200 ? (this.changedFieldParameters.get(operationId) ?? []) : [];
    return (body, query) => {
      let v = this.walkDown(body, down, names);
      for (const p of parameters) if (query[p] !== undefined) v = keepChangedOneOf(v, namesOf(query[p]));
      return v;
    };
  }

  /** A value moved down by each step's walker with its schema, newest first, then its changed-field names (`names`: its schema at this version). */
  private walkDown(value: unknown, down: { walker: SchemaWalker; schema: unknown }[], names: unknown): unknown {
    let v = value;
    for (let i = down.length - 1; i >= 0; i--) v = down[i].walker.walk(v, down[i].schema);
    return this.namesDown.walk(v, names);
  }

  /**
   * A reply gathered from its elements' texts (JsonParts.elements: a feed page) moved down to this
   * version element by element: each parsed and moved as replyMover would move it in the page, and
   * sent as its own text when it did not move (a change order's entry at 2026-06-01), else written
   * anew. Undefined when the parts keep no elements, or the page around them (`head` and `tail`:
   * an array, or an object with one array property) is not one this can tell apart; replyMover
   * then moves the whole reply.
   */
  partsDown(operationId: string, status: number, body: JsonParts<unknown>, query: Record<string, unknown>): JsonParts<unknown> | undefined {
    const { elements } = body;
    if (!elements) return undefined;
    const skeleton = JSON.parse(elements.head + elements.tail) as unknown;
    const key = Array.isArray(skeleton)
      ? undefined
      : skeleton && typeof skeleton === 'object'
        ? Object.keys(skeleton).find((k) => Array.isArray((skeleton as JsonObject)[k]))
        : undefined;
    if (!Array.isArray(skeleton) && key === undefined) return undefined;
    const code = String(status);
    const itemsOf = (doc: Contract, schema: SchemaNode | undefined): unknown => {
      const s: SchemaNode | undefined = typeof schema?.$ref === 'string' ? doc.components.schemas[schema.$ref.split('/').pop()!] : schema;
      if (!s || s.allOf || s.oneOf || s.anyOf) return undefined;
      return key === undefined ? s.items : s.properties?.[key]?.items;
    };
    const down = this.steps.map((s) => ({ walker: s.down, schema: itemsOf(s.newer, json(s.newerOps.get(operationId)?.responses?.[code]?.content)) }));
    const names = itemsOf(contractOf(this.version), json(this.ops.get(operationId)?.responses?.[code]?.content));
    if (down.some((d) => !d.schema) || !names) return undefined;
    // The rest of the page must read the same at this version (what is around the elements is sent as it is).
    const whole = this.replyMover(operationId, status);
    if (whole && JSON.stringify(whole(skeleton, {})) !== JSON.stringify(skeleton)) return undefined;
    // keepChangedOneOf's sets, one per parameter given (an entry must name a field of each).
    const wanted =
      status === 200 ? (this.changedFieldParameters.get(operationId) ?? []).filter((p) => query[p] !== undefined).map((p) => new Set(namesOf(query[p]))) : [];
    const items: string[] = [];
    for (const text of elements.items) {
      const element = JSON.parse(text) as unknown;
      const v = this.walkDown(element, down, names);
      if (!wanted.every((kept) => changedOneOf(v, kept))) continue;
      items.push(v === element ? text : JSON.stringify(v));
    }
    const moved = JsonParts.gather<unknown>(elements.head, items, elements.tail);
    if (body.elementCount !== undefined) moved.elementCount = items.length;
    moved.pageLimit = body.pageLimit;
    moved.nextQuery = body.nextQuery;
    return moved;
  }

  /**
   * A reply in the newest shape, moved down to this version; `query`: the request's, as this
   * version named it. A feed page asked for entries that changed some fields keeps those whose
   * `changedFields` at this version name one: the page read by the newest names those fields come
   * from (queryUp) also holds entries whose change this version does not see as one of them.
   */
  replyDown(operationId: string, status: number, body: unknown, query: Record<string, unknown> = {}): unknown {
    const move = this.replyMover(operationId, status);
    return move ? move(body, query) : body;
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
