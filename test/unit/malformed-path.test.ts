import { expect } from 'chai';
import OpenAPIBackend from 'openapi-backend';
import { loadContract } from '../../src/http/contract';
import { malformedPathError, malformedPathParameters } from '../../src/http/malformed-path';

/** src/http/malformed-path.ts: openapi-backend's URIError for a path value that does not decode, as our 400. */
describe('unit: a path value that is not valid percent-encoding', function () {
  this.timeout(60_000);
  const api = new OpenAPIBackend({ definition: structuredClone(loadContract()) as any, quick: true });
  before(() => api.init());
  const operation = (id: string) => api.router.getOperation(id)!;

  it('is a bare URIError from openapi-backend (what apiMiddleware maps)', () => {
    expect(() => api.router.parseRequest({ method: 'GET', path: '/jobs/%ZZ', headers: {} }, operation('getJob'))).to.throw(URIError);
  });

  it('names each parameter at fault with its raw value, and none when every value decodes', () => {
    expect(malformedPathParameters(operation('getJob'), '/jobs/%ZZ')).to.deep.equal([{ name: 'jobIdOrCode', value: '%ZZ' }]);
    expect(malformedPathParameters(operation('getJob'), '/jobs/J-1%E0%A4%A/')).to.deep.equal([{ name: 'jobIdOrCode', value: 'J-1%E0%A4%A' }]);
    expect(malformedPathParameters(operation('getJob'), '/jobs/J-1%20x')).to.deep.equal([]);
    const two = api.router.getOperations().find((op) => op.path === '/jobs/{jobIdOrCode}/phases/{phaseIdOrCode}')!;
    expect(malformedPathParameters(two, '/jobs/%G1/phases/P-1')).to.deep.equal([{ name: 'jobIdOrCode', value: '%G1' }]);
    expect(malformedPathParameters(two, '/jobs/%/phases/%C3%28')).to.deep.equal([
      { name: 'jobIdOrCode', value: '%' },
      { name: 'phaseIdOrCode', value: '%C3%28' },
    ]);
  });

  it('is a 400 naming the parameter, and nothing for a URIError the path did not cause', () => {
    const err = malformedPathError(operation('getJob'), '/jobs/%ZZ')!;
    expect(err.status).to.equal(400);
    expect(err.items).to.deep.equal([
      { message: 'path.jobIdOrCode: "%ZZ" is not valid percent-encoding (RFC 3986).', field: 'path.jobIdOrCode', rule: 'encoding' },
    ]);
    expect(malformedPathError(operation('getJob'), '/jobs/J-1')).to.equal(undefined);
    expect(malformedPathError(undefined, '/jobs/%ZZ')).to.equal(undefined);
  });
});
