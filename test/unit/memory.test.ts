import { expect } from 'chai';
import { applyHeapGrowth } from '../../src/ops/memory';

describe('unit: heap growth (HEAP_GROWTH_PERCENT)', () => {
  it('sets V8 heap growth unless it is 0 or node was started with its own', () => {
    expect(applyHeapGrowth(0, [])).to.equal(false);
    expect(applyHeapGrowth(50, ['--heap-growing-percent=80'])).to.equal(false);
    expect(applyHeapGrowth(50, ['--heap_growing_percent', '80'])).to.equal(false);
    expect(applyHeapGrowth(50, ['--max-old-space-size=512'])).to.equal(true);
  });
});
