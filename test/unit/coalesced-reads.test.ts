import { expect } from 'chai';
import { CoalescedReads } from '../../src/db/coalesced-reads';

/**
 * The statements CoalescedReads sends, answered only when the test says so (the test decides what
 * is in flight). The real statements on PostgreSQL are exercised by test/coalesced-reads.test.ts.
 */
function statements() {
  const sent: { keys: readonly string[]; answer(): void; fail(err: Error): void }[] = [];
  const run = (keys: readonly string[]) =>
    new Promise<(string | Error)[]>((resolve, reject) => {
      sent.push({ keys, answer: () => resolve(keys.map((k) => (k === 'bad' ? new Error(`no ${k}`) : `value of ${k}`))), fail: reject });
    });
  return { sent, run };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('CoalescedReads', () => {
  it('sends a lone read at once, alone', async () => {
    const reads = new CoalescedReads<string, string>({ maxInFlight: 1, maxBatch: 16 });
    const { sent, run } = statements();
    const value = reads.load('jobs org-1', 'J-1', run);
    await settle();
    expect(sent.map((s) => s.keys)).to.deep.equal([['J-1']]);
    sent[0].answer();
    expect(await value).to.equal('value of J-1');
    expect(reads.activeKinds, 'an idle kind is forgotten').to.equal(0);
  });

  it('holds the reads that arrive while one runs, then sends them together in arrival order, each with its own value', async () => {
    const reads = new CoalescedReads<string, string>({ maxInFlight: 1, maxBatch: 16 });
    const { sent, run } = statements();
    const first = reads.load('jobs org-1', 'J-1', run);
    await settle();
    const later = ['J-3', 'J-2', 'J-3'].map((k) => reads.load('jobs org-1', k, run));
    await settle();
    expect(sent, 'nothing more is sent while the first runs').to.have.length(1);
    sent[0].answer();
    expect(await first).to.equal('value of J-1');
    await settle();
    // Keys are not merged: the same object asked twice is two keys of the statement.
    expect(sent.map((s) => s.keys)).to.deep.equal([['J-1'], ['J-3', 'J-2', 'J-3']]);
    sent[1].answer();
    expect(await Promise.all(later)).to.deep.equal(['value of J-3', 'value of J-2', 'value of J-3']);
    expect(reads.activeKinds).to.equal(0);
  });

  it('never lets a read join a statement already sent', async () => {
    const reads = new CoalescedReads<string, string>({ maxInFlight: 1, maxBatch: 16 });
    const { sent, run } = statements();
    void reads.load('jobs org-1', 'J-1', run);
    await settle();
    expect(sent).to.have.length(1);
    const late = reads.load('jobs org-1', 'J-2', run);
    sent[0].answer();
    await settle();
    expect(sent.map((s) => s.keys)).to.deep.equal([['J-1'], ['J-2']]);
    sent[1].answer();
    expect(await late).to.equal('value of J-2');
  });

  it('keeps kinds apart: another organization or shape has its own statements', async () => {
    const reads = new CoalescedReads<string, string>({ maxInFlight: 1, maxBatch: 16 });
    const { sent, run } = statements();
    const values = [reads.load('jobs org-1', 'J-1', run), reads.load('jobs org-2', 'J-1', run), reads.load('jobs org-1 id', 'b0b0', run)];
    await settle();
    expect(sent.map((s) => s.keys)).to.deep.equal([['J-1'], ['J-1'], ['b0b0']]);
    for (const s of sent) s.answer();
    expect(await Promise.all(values)).to.deep.equal(['value of J-1', 'value of J-1', 'value of b0b0']);
    expect(reads.activeKinds).to.equal(0);
  });

  it('sends at most maxBatch reads per statement, and runs maxInFlight statements of a kind at once', async () => {
    const reads = new CoalescedReads<string, string>({ maxInFlight: 2, maxBatch: 3 });
    const { sent, run } = statements();
    const first = [reads.load('k', 'a', run), reads.load('k', 'b', run)];
    await settle();
    expect(
      sent.map((s) => s.keys),
      'the reads of one moment go together',
    ).to.deep.equal([['a', 'b']]);
    const rest = ['c', 'd', 'e', 'f', 'g', 'h', 'i'].map((k) => reads.load('k', k, run));
    await settle();
    // One more statement may run (two in flight); the reads after it wait, three per statement.
    expect(sent.map((s) => s.keys)).to.deep.equal([
      ['a', 'b'],
      ['c', 'd', 'e'],
    ]);
    sent[0].answer();
    await settle();
    expect(sent.map((s) => s.keys).slice(2)).to.deep.equal([['f', 'g', 'h']]);
    sent[1].answer();
    await settle();
    expect(sent.map((s) => s.keys).slice(3)).to.deep.equal([['i']]);
    sent[2].answer();
    sent[3].answer();
    expect(await Promise.all([...first, ...rest])).to.deep.equal(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'].map((k) => `value of ${k}`));
    expect(reads.activeKinds).to.equal(0);
  });

  it('answers each read of a failed statement with its error, a key answered by an Error with that error, and goes on', async () => {
    const reads = new CoalescedReads<string, string>({ maxInFlight: 1, maxBatch: 16 });
    const { sent, run } = statements();
    const first = reads.load('k', 'a', run);
    await settle();
    const waiting = [reads.load('k', 'b', run), reads.load('k', 'bad', run)];
    await settle();
    sent[0].fail(new Error('connection lost'));
    expect(await first.catch((e: Error) => e.message)).to.equal('connection lost');
    await settle();
    expect(sent[1].keys).to.deep.equal(['b', 'bad']);
    sent[1].answer();
    expect(await Promise.all(waiting.map((p) => p.catch((e: Error) => e.message)))).to.deep.equal(['value of b', 'no bad']);
    expect(reads.activeKinds).to.equal(0);
  });
});
