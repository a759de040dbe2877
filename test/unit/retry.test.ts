import { expect } from 'chai';
import { retryOnConflict } from '../../src/db/retry';
import { inLockOrder } from '../../src/db/batch';
import { fromDatabaseError } from '../../src/db/pg-errors';

const pgError = (code: string) => Object.assign(new Error(`pg ${code}`), { code });

describe('unit: conflicts between transactions', () => {
  it('re-runs work aborted by a deadlock or serialization failure, then succeeds', async () => {
    let calls = 0;
    const result = await retryOnConflict(
      async () => {
        calls++;
        if (calls === 1) throw pgError('40P01');
        if (calls === 2) throw pgError('40001');
        return 'done';
      },
      { baseDelayMs: 1 },
    );
    expect(result).to.equal('done');
    expect(calls).to.equal(3);
  });

  it('gives up after a bounded number of attempts (the error then becomes a 503), and never retries other errors', async () => {
    let calls = 0;
    const always = () =>
      retryOnConflict(
        async () => {
          calls++;
          throw pgError('40P01');
        },
        { attempts: 4, baseDelayMs: 1 },
      );
    const err = await always().catch((e) => e);
    expect(calls).to.equal(4);
    expect(fromDatabaseError(err).status).to.equal(503);
    calls = 0;
    const other = await retryOnConflict(
      async () => {
        calls++;
        throw pgError('23505');
      },
      { baseDelayMs: 1 },
    ).catch((e) => e);
    expect(calls).to.equal(1);
    expect(other.code).to.equal('23505');
  });

  it('orders upsert rows by their conflict key, so every batch locks in the same order', () => {
    const rows = [
      { organization_id: 'o', code: 'B', name: 'b' },
      { organization_id: 'o', code: 'A', name: 'a' },
      { organization_id: 'o', code: 'C', name: 'c' },
    ];
    expect(inLockOrder(rows, '(organization_id, code) WHERE deleted_at IS NULL').map((r) => r.code)).to.deep.equal(['A', 'B', 'C']);
    expect(inLockOrder([...rows].reverse(), '(organization_id, code)').map((r) => r.code)).to.deep.equal(['A', 'B', 'C']);
    const phases = [
      { job_id: null, code: 'B' },
      { job_id: 'j2', code: 'A' },
      { job_id: 'j1', code: 'Z' },
    ];
    expect(inLockOrder(phases, '(organization_id, job_id, code) WHERE deleted_at IS NULL').map((r) => r.code)).to.deep.equal(['B', 'Z', 'A']);
  });

  it('maps PostgreSQL\'s "text cannot hold this" errors (22021, 22P05) to 400', () => {
    for (const code of ['22021', '22P05']) {
      const mapped = fromDatabaseError(pgError(code));
      expect(mapped.status, code).to.equal(400);
      expect(mapped.message).to.match(/NUL byte/);
    }
  });
});
