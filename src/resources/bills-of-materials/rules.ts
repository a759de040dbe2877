import { INDEX_TEXT_TOO_LONG, tooLongToIndex } from '../../db/pg-errors';
import type { Violation } from '../../errors';

/**
 * The bill-of-materials field rules, checked by the service (not the schema) so that single
 * writes name the field and the rule, and batches report them per position.
 */
export interface WbsValue {
  structureType: string;
  value: string;
}

export interface BomItemInput {
  catalogId?: string | null;
  description?: string;
  estimatedQuantity?: unknown;
  mpn?: string | null;
  unitOfMeasure?: string | null;
  unitPrice?: unknown;
  upc?: string | null;
  workBreakdownStructureValues?: WbsValue[] | null;
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** Quantities and prices are bounded at 10^12, as everywhere in the API (guides.md, Limits on values). */
const VALUE_MAX = 1e12;
const maximum = (field: string): Violation => ({ field, rule: 'maximum', message: `must be less than or equal to ${VALUE_MAX}` });

/** As the contract's other descriptions (and as JSON Schema's maxLength counts: code points). */
const DESCRIPTION_MAX = 1000;
const characters = (s: string) => (s.length <= DESCRIPTION_MAX ? s.length : [...s].length);

export function checkBomItem(input: BomItemInput, creating: boolean): Violation[] {
  const out: Violation[] = [];
  const q = input.estimatedQuantity;
  if (q === undefined) {
    if (creating) out.push({ field: 'estimatedQuantity', rule: 'required', message: 'is required' });
  } else if (!isNumber(q)) out.push({ field: 'estimatedQuantity', rule: 'type', message: 'must be a number' });
  else {
    if (q < 0) out.push({ field: 'estimatedQuantity', rule: 'minimum', message: 'must be greater than or equal to 0' });
    if (q > VALUE_MAX) out.push(maximum('estimatedQuantity'));
    if (!Number.isInteger(q)) out.push({ field: 'estimatedQuantity', rule: 'integer', message: 'must be a whole number' });
  }
  const p = input.unitPrice;
  if (p !== undefined && p !== null) {
    if (!isNumber(p)) out.push({ field: 'unitPrice', rule: 'type', message: 'must be a number' });
    else if (p < 0) out.push({ field: 'unitPrice', rule: 'minimum', message: 'must be greater than or equal to 0' });
    else if (p > VALUE_MAX) out.push(maximum('unitPrice'));
  }
  if (input.description === 'null') out.push({ field: 'description', rule: 'not', message: "cannot be the literal string 'null'" });
  else if (typeof input.description === 'string' && characters(input.description) > DESCRIPTION_MAX)
    out.push({ field: 'description', rule: 'maxLength', message: `must NOT have more than ${DESCRIPTION_MAX} characters` });
  // Indexed (orderBy description): within its characters, it may still be too long in bytes.
  else if (typeof input.description === 'string' && tooLongToIndex(input.description))
    out.push({ field: 'description', rule: 'maxLength', message: INDEX_TEXT_TOO_LONG });
  return out;
}

/** Additive merge by structureType: given values replace same-type ones, new types are appended. */
export function mergeWbs(current: WbsValue[], given: WbsValue[] | null | undefined): WbsValue[] {
  if (given === undefined) return current;
  if (given === null) return [];
  const merged = new Map(current.map((v) => [v.structureType, v.value]));
  for (const v of given) merged.set(v.structureType, v.value);
  return [...merged].map(([structureType, value]) => ({ structureType, value }));
}
