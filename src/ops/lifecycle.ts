/**
 * The instance's place in its life: `/readyz` reads it, the shutdown sequence (src/ops/shutdown.ts)
 * sets it. One per app, so a test can shut one instance down while others keep serving.
 */
export class Lifecycle {
  private stopping = false;

  get shuttingDown(): boolean {
    return this.stopping;
  }

  /** From now on /readyz answers 503: load balancers stop sending new requests here. */
  beginShutdown(): void {
    this.stopping = true;
  }
}
