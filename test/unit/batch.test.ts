import { expect } from 'chai';
import { ApiError } from '../../src/http/errors';
import { PositionErrors, checkBatchSize } from '../../src/db/batch';

const thrown = (fn: () => void): ApiError => {
  try {
    fn();
  } catch (err) {
    return err as ApiError;
  }
  throw new Error('did not throw');
};

describe('unit: batch errors', () => {
  it('uses the exact request-level messages', () => {
    expect(thrown(() => checkBatchSize([])).items).to.deep.equal([{ message: 'Invalid input, list cannot be empty' }]);
    expect(thrown(() => checkBatchSize(new Array(1001).fill({}))).items).to.deep.equal([{ message: 'Invalid input, list cannot be greater than 1000' }]);
    expect(() => checkBatchSize(new Array(1000).fill({}))).not.to.throw();
  });

  it('reports every rejected position, zero-based and sorted, one line each, in one error', () => {
    const errors = new PositionErrors();
    errors.add(3, 'code is required');
    errors.add(0, 'name is required');
    errors.add(3, 'name is required');
    errors.addDuplicates(['A', 'B', 'A', undefined], (k) => `code ${k}`);
    const err = thrown(() => errors.throwIfAny());
    expect(err.status).to.equal(400);
    expect(err.items).to.have.length(1);
    expect(err.items[0].message).to.equal(
      [
        'Position 0: name is required',
        'Position 2: code A appears more than once in the batch (first at position 0)',
        'Position 3: code is required; name is required',
      ].join('\n'),
    );
  });
});
