import { expect } from 'chai';
import { ApiError } from '../../src/errors';
import type { ErrorObject } from 'ajv';
import { PositionErrors, checkBatchSize, checkElements } from '../../src/db/batch';
import { byElement } from '../../src/http/validation-errors';

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
    errors.addDuplicates(
      ['A', 'B', 'A', undefined].map((key, position) => ({ position, key })),
      (k) => `code ${k}`,
    );
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

  it('starts element checks with the schema-rejected positions, and hands on the others with their positions', () => {
    const rejected = new Map([
      [2, [{ field: '', rule: 'type', message: 'must be an object' }]],
      [
        1,
        [
          { field: 'name', rule: 'required', message: 'is required' },
          { field: 'state', rule: 'enum', message: 'must be one of OPEN, CLOSED (got "WEIRD")' },
        ],
      ],
    ]);
    const { errors, accepted } = checkElements([{ code: 'A' }, { code: 'B' }, 42, { code: 'A' }], rejected);
    expect(accepted).to.deep.equal([
      { input: { code: 'A' }, position: 0 },
      { input: { code: 'A' }, position: 3 },
    ]);
    errors.addDuplicates(
      accepted.map(({ input, position }) => ({ position, key: (input as { code: string }).code })),
      (k) => `code ${k}`,
    );
    expect(thrown(() => errors.throwIfAny()).items).to.deep.equal([
      {
        message: [
          'Position 1: name: is required (rule required); state: must be one of OPEN, CLOSED (got "WEIRD") (rule enum)',
          'Position 2: must be an object (rule type)',
          'Position 3: code A appears more than once in the batch (first at position 0)',
        ].join('\n'),
      },
    ]);
  });

  it('splits ajv errors of a batch into those inside elements, by position and field within the element, and those of the request itself', () => {
    const err = (instancePath: string, keyword: string, params: Record<string, unknown>, message = ''): ErrorObject =>
      ({ instancePath, keyword, params, message, schemaPath: '#' }) as ErrorObject;
    const { request, elements } = byElement(
      [
        err('/requestBody/inputs/12', 'required', { missingProperty: 'name' }),
        err('/requestBody/inputs/3/defaultLocation', 'required', { missingProperty: 'name' }),
        err('/requestBody/inputs/3/groupIds', 'type', { type: 'array' }),
        err('/requestBody/inputs/3/groupIds', 'type', { type: 'array' }),
        err('/requestBody/inputs/4', 'type', { type: 'object' }),
        err('/requestBody', 'additionalProperties', { additionalProperty: 'colour' }),
        err('/requestBody/inputsExtra/0', 'type', { type: 'string' }),
      ],
      'inputs',
    );
    expect(request.map((e) => e.instancePath)).to.deep.equal(['/requestBody', '/requestBody/inputsExtra/0']);
    expect([...elements]).to.deep.equal([
      [12, [{ field: 'name', rule: 'required', message: 'is required' }]],
      [
        3,
        [
          { field: 'defaultLocation.name', rule: 'required', message: 'is required' },
          { field: 'groupIds', rule: 'type', message: 'must be an array' },
        ],
      ],
      [4, [{ field: '', rule: 'type', message: 'must be an object' }]],
    ]);
  });
});
