#!/usr/bin/env node
/**
 * `npm run mock [-- --port 4010 --host 127.0.0.1 --api-version <date> <prism options, e.g. -d>]` (`-- --help` lists them):
 * Prism's mock of the contract (the newest version's, or the one named) behind the service's request checks (front.ts). Prism runs as this process's child on a
 * free loopback port; SIGTERM or SIGINT to this process stops both and frees both ports (the npm
 * script `exec`s node, so the signal sent to npm's PID arrives here).
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../free-port';
import { GENERATED_DIR, ROOT } from '../paths';
import { createMockFront } from './front';
import { NEWEST, versionNamed } from '../versions/registry';
import { VERSIONS } from '../../api/versions/index';

const USAGE = `Usage: npm run mock [-- options]

A mock of the contract (generated/openapi.yaml) on http://127.0.0.1:4010, offline: the service's own
request checks, then Prism's answers from the contract's examples.

Options:
  --port, -p <port>   port to listen on (default 4010; 0: any free port)
  --host, -h <host>   address to listen on (default 127.0.0.1)
  --api-version <date>  the API version to serve (default the newest; GET /versions lists them)
  --help              this text
  any other option    passed to Prism's mock as is, e.g. -d (dynamic: values invented from the schemas)

Per request: Prefer: code=<status> chooses the documented status, Prefer: example=<name> a named example.`;

function parseArgs(argv: string[]): { port: number; host: string; version: string; prismOptions: string[] } {
  if (argv.includes('--help')) {
    console.log(USAGE);
    process.exit(0);
  }
  let port = 4010;
  let host = '127.0.0.1';
  let version = NEWEST;
  const prismOptions: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--port' || argv[i] === '-p') port = Number(argv[++i]);
    else if (argv[i] === '--host' || argv[i] === '-h') host = argv[++i];
    else if (argv[i] === '--api-version') version = argv[++i];
    else prismOptions.push(argv[i]);
  }
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port: must be a whole number from 0 to 65535`);
  if (!versionNamed(version)) throw new Error(`--api-version: ${version} is not an API version (${VERSIONS.map((v) => v.version).join(', ')})`);
  return { port, host, version, prismOptions };
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

/** Waits until Prism answers anything on its port (it parses the whole contract first). */
async function untilAnswering(url: string, exited: () => boolean): Promise<void> {
  for (;;) {
    if (exited()) throw new Error('Prism exited before it answered.');
    try {
      await fetch(url, { signal: AbortSignal.timeout(2000) });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

async function main(): Promise<void> {
  const { port, host, version, prismOptions } = parseArgs(process.argv.slice(2));
  const contractFile = version === NEWEST ? join(GENERATED_DIR, 'openapi.yaml') : join(GENERATED_DIR, 'versions', version, 'openapi.yaml');
  const server = createServer();
  // The port first: a taken one is said at once, before Prism spends its start parsing the contract.
  const bound = await listen(server, port, host).catch((err: NodeJS.ErrnoException) => {
    console.error(err.code === 'EADDRINUSE' ? `Port ${port} on ${host} is taken: stop what holds it, or npm run mock -- --port <another>.` : err.message);
    process.exit(1);
  });
  const prismPort = await freePort();
  const prismCli = realpathSync(join(ROOT, 'node_modules', '.bin', 'prism'));
  const prism = spawn(
    process.execPath,
    [prismCli, 'mock', contractFile, '--port', String(prismPort), '--host', '127.0.0.1', '--verboseLevel', 'warn', ...prismOptions],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
  let stopping = false;
  prism.on('exit', (code, signal) => {
    if (stopping) return;
    console.error(`Prism exited (${signal ?? `exit code ${code}`}).`);
    process.exit(1);
  });
  const stop = () => {
    if (stopping) return;
    stopping = true;
    server.close();
    server.closeAllConnections();
    if (prism.exitCode !== null || prism.signalCode !== null) process.exit(0);
    prism.once('exit', () => process.exit(0));
    prism.kill('SIGTERM');
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);

  // Requests that arrive while Prism starts wait for it.
  const ready = untilAnswering(`http://127.0.0.1:${prismPort}/healthz`, () => prism.exitCode !== null).then(() =>
    createMockFront({ host: '127.0.0.1', port: prismPort }, version),
  );
  server.on('request', (req, res) => void ready.then((app) => app(req, res)));
  await ready;
  console.log(
    `Mock of the contract (API version ${version}) on http://${host}:${bound}: Prism's examples behind the service's request checks (Prefer: code=<status> or example=<name> chooses an answer).`,
  );
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
