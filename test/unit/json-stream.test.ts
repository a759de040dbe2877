import { expect } from 'chai';
import { JsonStream } from '../../src/db/json';

/**
 * A streamed page holds a database connection until its elements are closed: stopping the parts
 * at any point (even at the head, before an element was asked for) must close them.
 */
describe('unit: JsonStream', () => {
  const elements = (values: string[]) => {
    const state = { closed: 0, i: 0 };
    const iterator: AsyncIterator<string, void> = {
      next: async () => (state.i < values.length ? { done: false, value: values[state.i++] } : { done: true, value: undefined }),
      return: async () => {
        state.closed++;
        return { done: true, value: undefined };
      },
    };
    return { iterator, state };
  };

  it('joins head, elements and tail into one document', async () => {
    const { iterator, state } = elements(['{"a":1}', '{"a":2}']);
    expect(await new JsonStream('{"data":[', iterator, ']}').text()).to.equal('{"data":[{"a":1},{"a":2}]}');
    expect(state.closed).to.equal(1);
  });

  it('closes the elements when the parts stop at the head', async () => {
    const { iterator, state } = elements(['{"a":1}']);
    const parts = new JsonStream('{"data":[', iterator, ']}').parts();
    expect((await parts.next()).value).to.equal('{"data":[');
    await parts.return();
    expect(state.closed).to.equal(1);
    expect(state.i).to.equal(0);
  });

  it('closes the elements when the parts stop in the middle', async () => {
    const { iterator, state } = elements(['1', '2', '3']);
    const parts = new JsonStream('[', iterator, ']').parts();
    await parts.next();
    await parts.next();
    await parts.return();
    expect(state.closed).to.equal(1);
    expect(state.i).to.equal(1);
  });
});
