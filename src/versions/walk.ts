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

  /** Whether a value of `schema` can hold an object to transform. */
  touches(schema: any, seen: Set<object> = new Set()): boolean {
    if (!schema || typeof schema !== 'object') return false;
    const known = this.reaches.get(schema);
    if (known !== undefined) return known;
    if (seen.has(schema)) return false;
    seen.add(schema);
    let result: boolean;
    if (typeof schema.$ref === 'string' && schema.$ref.startsWith(REF)) {
      const name = schema.$ref.slice(REF.length);
      result = this.transforms.has(name) || this.touches(this.doc.components.schemas[name], seen);
    } else {
      const parts = [...(schema.allOf ?? []), ...(schema.oneOf ?? []), ...(schema.anyOf ?? []), schema.items, ...Object.values(schema.properties ?? {})];
      if (typeof schema.additionalProperties === 'object') parts.push(schema.additionalProperties);
      result = parts.some((p) => this.touches(p, seen));
    }
    // Only a settled answer is remembered (a cycle's inner `false` is provisional).
    if (result || seen.size === 1) this.reaches.set(schema, result);
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
