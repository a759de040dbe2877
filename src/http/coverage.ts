/**
 * Which operations answered which statuses during a test run (test mode only), so `npm test` can
 * report operations never exercised with a success or an error status.
 */
const seen = new Map<string, Set<number>>();

const undocumented = new Set<string>();

export function recordCoverage(operationId: string, status: number, documented = true): void {
  if (!documented) undocumented.add(`${operationId} ${status}`);
  let s = seen.get(operationId);
  if (!s) seen.set(operationId, (s = new Set()));
  s.add(status);
}

export function coverage(): Map<string, Set<number>> {
  return seen;
}

/** Error statuses answered by operations whose contract does not list them. */
export function undocumentedStatuses(): string[] {
  return [...undocumented].sort();
}
