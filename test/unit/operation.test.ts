import { expect } from 'chai';
import { JsonParts } from '../../src/db/json';
import { onceEach } from '../../src/db/object-digest';
import { valueOf, type Run } from '../../src/http/operation';

describe('unit: an operation reads its reply once (src/http/operation.ts)', () => {
  const taxCode = { id: '0e1f2a3b-4c5d-4e6f-8a7b-9c0d1e2f3a4b', code: 'TX', taxPercent: 0.08 };
  const run = () => ({}) as Run;

  it('reads the reply whether it is an object, JSON text from PostgreSQL or JSON in parts', () => {
    expect(valueOf(run(), taxCode)).to.equal(taxCode);
    expect(valueOf(run(), JSON.stringify(taxCode))).to.deep.equal(taxCode);
    const text = JSON.stringify(taxCode);
    expect(valueOf(run(), new JsonParts([text.slice(0, 10), text.slice(10)]))).to.deep.equal(taxCode);
  });

  it('parses a reply once: every step of the run gets the same value', () => {
    const r = run();
    const body = new JsonParts([JSON.stringify(taxCode)]);
    expect(valueOf(r, body)).to.equal(valueOf(r, body));
    const text = JSON.stringify(taxCode);
    expect(valueOf(r, text)).to.equal(valueOf(r, text));
  });

  it("puts a write's object in canonical form once (its ETag and its feed entry share it)", () => {
    const formOf = onceEach();
    expect(formOf(taxCode)).to.equal(formOf(taxCode));
    expect(formOf({ ...taxCode })).to.not.equal(formOf(taxCode));
    expect(formOf({ ...taxCode }).digest).to.equal(formOf(taxCode).digest);
  });
});
