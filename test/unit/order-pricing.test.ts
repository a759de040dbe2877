import { expect } from 'chai';
import { extPrice, extPriceIncludingTax, pricePerFactor } from '../../src/resources/orders/pricing';

describe('unit: order line prices', () => {
  const line = (quantity: number | null, unitPrice: number | null, unitsOfMeasure: string | null, unitDiscount: number | null = null) => ({
    quantity,
    unitPrice,
    unitsOfMeasure,
    unitDiscount,
  });

  it('divides by the unit factor: E and blank per unit, C per hundred, M per thousand', () => {
    expect([pricePerFactor('EA'), pricePerFactor('E'), pricePerFactor(null), pricePerFactor(''), pricePerFactor('C'), pricePerFactor('M')]).to.deep.equal([
      1, 1, 1, 1, 100, 1000,
    ]);
    expect(extPrice(line(3, 10, 'E'))).to.equal(30);
    expect(extPrice(line(7, 1.5, null))).to.equal(10.5);
    expect(extPrice(line(1200, 86.5, 'C'))).to.equal(1038);
    expect(extPrice(line(2500, 40, 'M'))).to.equal(100);
  });

  it('applies the percent discount and rounds to cents', () => {
    expect(extPrice(line(1200, 86.5, 'C', 2.5))).to.equal(1012.05);
    expect(extPrice(line(3, 0.335, 'EA', 10))).to.equal(0.9);
    expect(extPrice(line(1, 100, 'EA', 100))).to.equal(0);
  });

  it('leaves unpriced lines unpriced', () => {
    expect(extPrice(line(4, null, 'EA'))).to.equal(null);
    expect(extPrice(line(null, 4, 'EA'))).to.equal(null);
    expect(extPriceIncludingTax(null, 0.08, false)).to.equal(null);
  });

  it('adds tax at the rate unless exempt or untaxed', () => {
    expect(extPriceIncludingTax(1012.05, 0.08, false)).to.equal(1093.01);
    expect(extPriceIncludingTax(1012.05, 0.08, true)).to.equal(1012.05);
    expect(extPriceIncludingTax(1012.05, null, false)).to.equal(1012.05);
  });
});
