import { harness } from './harness';

/**
 * What `work` returned and how many statements the in-process service sent meanwhile (knex's
 * `query` event on the harness's database): a bound on round trips that holds on any machine,
 * where a bound on time does not. Through the proxy the service is another process: 0 statements.
 */
export async function statementsOf<T>(work: () => Promise<T>): Promise<{ result: T; statements: number }> {
  const db = harness().db;
  let statements = 0;
  const count = () => statements++;
  db.on('query', count);
  try {
    return { result: await work(), statements };
  } finally {
    db.removeListener('query', count);
  }
}
