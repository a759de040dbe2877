import { sendDbWarningsTo } from '../../src/db/knex';

/**
 * knex's warnings during the test run (a connection lost in an outage test, an acquire that
 * failed), kept instead of printed: `npm test` prints mocha's report only. A test that provokes
 * them asserts them (`dbWarningsSince`).
 */
const warnings: string[] = [];
sendDbWarningsTo((message) => warnings.push(message));

/** A mark to pass to `dbWarningsSince`. */
export const dbWarningMark = (): number => warnings.length;

/** The warnings given since `mark`. */
export const dbWarningsSince = (mark: number): string[] => warnings.slice(mark);
