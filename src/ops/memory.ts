import v8 from 'node:v8';

/**
 * The process's heap growth: after each full collection V8 lets the old generation grow to a
 * multiple of what survived before collecting again. By its own policy that multiple goes up to 4
 * while collections are cheap, so after a burst of large pages the process kept hundreds of
 * megabytes of garbage for as long as it stayed busy (docs/performance.md: the peak RSS row). With
 * a fixed growth of `percent` it collects earlier and keeps far less, at no throughput cost the
 * benchmark could measure (bench/results). 0 leaves V8's policy in place.
 *
 * It is V8's `--heap-growing-percent`, set through node's public `v8.setFlagsFromString` as the
 * process starts; V8 reads it each time it computes the next limit. A value given on node's own
 * command line wins.
 */
export function applyHeapGrowth(percent: number, execArgv: readonly string[] = process.execArgv): boolean {
  if (percent <= 0 || execArgv.some((arg) => /^--heap[-_]growing[-_]percent\b/.test(arg))) return false;
  v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
  return true;
}
