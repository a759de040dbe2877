import { ChildProcess, spawn, SpawnOptions } from 'node:child_process';

/** A child process whose whole output is kept, so a failure can show it. */
export interface Child {
  process: ChildProcess;
  /** Everything the child wrote to stdout and stderr so far. */
  output(): string;
  /** Stops the child (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
}

export function startChild(command: string, args: string[], options: SpawnOptions = {}): Child {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  return {
    process: child,
    output: () => output,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * Waits until `url` answers over HTTP (any status). Fails at once, with the child's output, when
 * the child exits first (a port taken, a bad argument): never a bare timeout.
 */
export async function waitForHttp(child: Child, url: string, timeoutMs: number, name = 'the child process'): Promise<void> {
  const started = Date.now();
  const tail = () => child.output().slice(-3000);
  for (;;) {
    const { exitCode, signalCode } = child.process;
    if (exitCode !== null || signalCode !== null) {
      throw new Error(`${name} exited (${signalCode ?? `exit code ${exitCode}`}) before answering ${url}:\n${tail()}`);
    }
    try {
      await fetch(url, { signal: AbortSignal.timeout(2000) });
      return;
    } catch (err) {
      if (Date.now() - started > timeoutMs) {
        throw new Error(`${name} did not answer ${url} within ${timeoutMs / 1000} s (${(err as Error).message}); its output:\n${tail()}`, { cause: err });
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * fetch from a child's server; when the request fails because the child has gone, the error says
 * how it ended and shows its last output.
 */
export async function fetchFrom(child: Child, url: string, init?: RequestInit, name = 'the child process'): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (err) {
    const { exitCode, signalCode } = child.process;
    const state = exitCode !== null || signalCode !== null ? `${name} has exited (${signalCode ?? `exit code ${exitCode}`})` : `${name} is running`;
    throw new Error(
      `${init?.method ?? 'GET'} ${url} failed (${(err as Error).message}; ${(err as { cause?: Error }).cause?.message ?? ''}); ${state}; its last output:\n${child.output().slice(-3000)}`,
      { cause: err },
    );
  }
}
