import { contractOperations } from '../../src/http/contract';
import { coverage, undocumentedStatuses } from '../../src/http/coverage';
import { harness } from './harness';

/**
 * After the run: which operations were answered with a success and with an error status by the
 * in-process server (whose responses were all validated against the contract). With
 * COVERAGE_STRICT=1 (set by `npm test`, which runs every suite) a gap fails the run; a run of a
 * single file only reports.
 */
export function printCoverageReport(): string | undefined {
  let h;
  try {
    h = harness();
  } catch {
    return undefined;
  }
  if (!h.inProcess) return undefined;
  const seen = coverage();
  const ops = contractOperations();
  const noSuccess = ops.filter((o) => ![...(seen.get(o.operationId) ?? [])].some((s) => s < 400));
  const noError = ops.filter((o) => ![...(seen.get(o.operationId) ?? [])].some((s) => s >= 400));
  const full = ops.length - new Set([...noSuccess, ...noError].map((o) => o.operationId)).size;
  console.log(`\nContract coverage: ${full}/${ops.length} operations exercised with a success and an error status.`);
  if (noSuccess.length) console.log(`  never answered with success: ${noSuccess.map((o) => o.operationId).join(', ')}`);
  if (noError.length) console.log(`  never answered with an error: ${noError.map((o) => o.operationId).join(', ')}`);
  const undocumented = undocumentedStatuses();
  if (undocumented.length) console.log(`  ERROR statuses the contract does not document: ${undocumented.join(', ')}`);
  if (process.env.COVERAGE_STRICT === '1' && (noSuccess.length || noError.length || undocumented.length)) {
    return 'Contract coverage is incomplete (COVERAGE_STRICT=1): every operation needs a success and an error test, and only documented statuses.';
  }
  return undefined;
}
