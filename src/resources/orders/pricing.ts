/**
 * The derived prices of an order line, computed here and nowhere else in TypeScript (the SQL of
 * change-order totals and release costs uses the same factors):
 *   extPrice = quantity x unitPrice x (1 - unitDiscount / 100) / pricePerFactor, rounded to cents
 *   extPriceIncludingTax = extPrice x (1 + taxRate), rounded to cents (taxRate 0 when tax exempt)
 * A line without a unit price or a quantity is unpriced: both are null.
 */
export interface LinePrice {
  quantity: number | null;
  unitPrice: number | null;
  /** Percent (2.5 = 2.5 %). */
  unitDiscount: number | null;
  unitsOfMeasure: string | null;
  /** The multiplier of the organization's unit of measure of that code, when there is one. */
  multiplier?: string | null;
}

/**
 * Prices are per hundred for unit C, per thousand for unit M, per unit for every other unit (or
 * none): the spec's rule for release costs. A unit of measure of the organization whose multiplier
 * is C or M (spec: the multiplier "affects extended-price calculation") prices its items per
 * hundred or per thousand whatever its code (`CWT` with multiplier C); E, the default, leaves the
 * code's rule.
 */
export const pricePerFactor = (unit: string | null | undefined, multiplier?: string | null): number =>
  multiplier === 'M' ? 1000 : multiplier === 'C' ? 100 : unit === 'M' ? 1000 : unit === 'C' ? 100 : 1;

const cents = (n: number) => Math.round((n + Number.EPSILON) * 100) / 100;

export function extPrice(line: LinePrice): number | null {
  if (line.unitPrice === null || line.quantity === null) return null;
  const discount = line.unitDiscount ?? 0;
  return cents((line.quantity * line.unitPrice * (1 - discount / 100)) / pricePerFactor(line.unitsOfMeasure, line.multiplier));
}

/** `taxRate` is a fraction (0.0725 = 7.25 %); null (no tax code) or a tax-exempt order adds nothing. */
export function extPriceIncludingTax(ext: number | null, taxRate: number | null, taxExempt: boolean): number | null {
  if (ext === null) return null;
  return taxExempt || !taxRate ? ext : cents(ext * (1 + taxRate));
}
