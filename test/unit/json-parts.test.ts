import { expect } from 'chai';
import { JsonParts, PART_BYTES } from '../../src/db/json';

describe('unit: JsonParts', () => {
  it('holds head, comma-separated parts and tail, which join into the document', () => {
    const doc = JsonParts.of('[', ['{"a":1},{"a":2}', '{"a":3}'], ']');
    expect(doc.parts).to.deep.equal(['[', '{"a":1},{"a":2}', ',', '{"a":3}', ']']);
    expect(JSON.parse(doc.text())).to.deep.equal([{ a: 1 }, { a: 2 }, { a: 3 }]);
    expect(JsonParts.of('[', [], ']').text()).to.equal('[]');
  });

  it('gathers elements into parts that end with the first element reaching PART_BYTES', () => {
    const element = JSON.stringify({ text: 'x'.repeat(1000) });
    const elements = Array.from({ length: 100 }, () => element);
    const doc = JsonParts.gather('{"data":[', elements, '],"hasMore":false}');
    const parts = doc.parts.slice(1, -1).filter((p) => p !== ',');
    expect(parts.length).to.equal(Math.ceil(100 / Math.ceil(PART_BYTES / element.length)));
    for (const part of parts) expect(part.length).to.be.below(PART_BYTES + element.length + 100);
    expect(JSON.parse(doc.text()).data).to.have.length(100);
    expect(JsonParts.gather('{"data":[', [], ']}').text()).to.equal('{"data":[]}');
  });
});
