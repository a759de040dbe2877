import type { Contract, JsonObject } from './types.ts';

const REF = '#/components/schemas/';

/** An object schema's parts a walk visits (SchemaWalker.fieldsOf). */
interface SchemaFields {
  named: [string, object][];
  others: object | undefined;
}

const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Applies a transform to every object of a named component schema inside a value, found by the
 * schema the value has in one version's contract (through $ref, allOf, items, properties and
 * additionalProperties; the innermost objects first). Parts of a schema that can hold none of
 * the transformed schemas are not walked at all (decided once per schema object).
 */
export class SchemaWalker {
  private readonly reaches = new WeakMap<object, boolean>();
  private readonly doc: Contract;
  private readonly transforms: ReadonlyMap<string, (value: JsonObject) => JsonObject>;

  constructor(doc: Contract, transforms: ReadonlyMap<string, (value: JsonObject) => JsonObject>) {
    this.doc = doc;
    this.transforms = transforms;
  }

  /** Whether a value of `schema` can hold an object to transform (decided once per schema object). */
  touches(schema: any): boolean {
    if (!schema || typeof schema !== 'object') return false;
    const known = this.reaches.get(schema);
    if (known !== undefined) return known;
    const seen = new Set<object>();
    const result = this.reach(schema, seen);
    // A cycle's inner `false` is provisional, but when the outermost answer is `false` no schema it
    // went through reaches a transformed one either: all of them are settled. (Remembering only
    // the outermost left every compound part of a reply's schema to be decided again at each
    // value the walk met: a tenth of an older version's order read.)
    if (!result) for (const s of seen) this.reaches.set(s, false);
    return result;
  }

  private reach(schema: any, seen: Set<object>): boolean {
    if (!schema || typeof schema !== 'object') return false;
    const known = this.reaches.get(schema);
    if (known !== undefined) return known;
    if (seen.has(schema)) return false;
    seen.add(schema);
    let result: boolean;
    if (typeof schema.$ref === 'string' && schema.$ref.startsWith(REF)) {
      const name = schema.$ref.slice(REF.length);
      result = this.transforms.has(name) || this.reach(this.doc.components.schemas[name], seen);
    } else {
      const parts = [...(schema.allOf ?? []), ...(schema.oneOf ?? []), ...(schema.anyOf ?? []), schema.items, ...Object.values(schema.properties ?? {})];
      if (typeof schema.additionalProperties === 'object') parts.push(schema.additionalProperties);
      result = parts.some((p) => this.reach(p, seen));
    }
    // A `true` is settled whatever cycle it was found in.
    if (result) this.reaches.set(schema, true);
    return result;
  }

  walk(value: unknown, schema: any): unknown {
    if (value === null || typeof value !== 'object' || !this.touches(schema)) return value;
    if (typeof schema.$ref === 'string') {
      const name = schema.$ref.slice(REF.length);
      const inner = this.walk(value, this.doc.components.schemas[name]);
      const transform = this.transforms.get(name);
      return transform && isObject(inner) ? transform(inner) : inner;
    }
    let v: unknown = value;
    for (const part of schema.allOf ?? []) v = this.walk(v, part);
    if (Array.isArray(v)) return schema.items ? v.map((e) => this.walk(e, schema.items)) : v;
    if (!isObject(v)) return v;
    const { named, others } = this.fieldsOf(schema);
    let out: JsonObject | undefined;
    const move = (key: string, item: unknown, propertySchema: object) => {
      const moved = this.walk(item, propertySchema);
      if (moved !== item) (out ??= { ...v })[key] = moved;
    };
    for (const [key, propertySchema] of named) if (Object.hasOwn(v, key)) move(key, v[key], propertySchema);
    if (others) for (const key of Object.keys(v)) if (!Object.hasOwn(schema.properties ?? {}, key)) move(key, v[key], others);
    return out ?? v;
  }

  private readonly fields = new WeakMap<object, SchemaFields>();

  /**
   * The properties of an object schema that can hold an object to transform, and its
   * additionalProperties schema when it can: only those are walked (an Order's 39 fields, none of
   * which holds one, are not visited one by one at every reply).
   */
  private fieldsOf(schema: { properties?: Record<string, object>; additionalProperties?: unknown }): SchemaFields {
    let fields = this.fields.get(schema);
    if (!fields) {
      const additional = typeof schema.additionalProperties === 'object' && schema.additionalProperties !== null ? schema.additionalProperties : undefined;
      fields = {
        named: Object.entries(schema.properties ?? {}).filter(([, s]) => this.touches(s)),
        others: additional && this.touches(additional) ? additional : undefined,
      };
      this.fields.set(schema, fields);
    }
    return fields;
  }
}
