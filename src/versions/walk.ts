import type { Contract, JsonObject } from './types.ts';

const REF = '#/components/schemas/';

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
    if (!isObject(v) || (!schema.properties && typeof schema.additionalProperties !== 'object')) return v;
    let out: JsonObject | undefined;
    for (const [key, item] of Object.entries(v)) {
      const propertySchema = schema.properties?.[key] ?? (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
      if (!propertySchema) continue;
      const moved = this.walk(item, propertySchema);
      if (moved !== item) (out ??= { ...v })[key] = moved;
    }
    return out ?? v;
  }
}
