// Runs a tool and shows its output only when it fails (or warns): `npm start` and `npm test` print
// what concerns the user, not a tool's success lines or notices addressed to maintainers (Redocly's
// "build-docs now renders docs with Redoc 3" box, its Node end-of-life box).
// `node scripts/quiet.mjs <command> [args...]`, or `runQuietly(command, args)` from another script.
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';

/** Runs `command`; on failure, or output naming a warning, writes the output and returns its exit code. */
export function runQuietly(command, args) {
  const result = spawnSync(command, args, { encoding: 'utf8', env: { ...process.env, REDOCLY_TELEMETRY: 'off' }, maxBuffer: 64 * 1024 * 1024 });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
  const failed = result.status !== 0;
  // A lint warning must still be seen (npm test wants none); Redocly's Node 20 box is not one.
  const warned = /\bwarnings?\b/i.test(output.replace('Deprecation warning: Node.js 20', ''));
  if (failed || warned) process.stderr.write(output);
  if (result.error) process.stderr.write(`${command}: ${result.error.message}\n`);
  return failed ? (result.status ?? 1) : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [command, ...args] = process.argv.slice(2);
  process.exit(runQuietly(command, args));
}
