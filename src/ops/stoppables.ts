/**
 * Background work that must stop before the database pool closes on shutdown (the outbox mailer,
 * the webhook delivery worker, ...). A worker registers itself when it starts; the shutdown sequence
 * stops them all, the last registered first, after the HTTP server has drained.
 */
export interface Stoppable {
  name: string;
  stop(): void | Promise<void>;
}

const registered = new Set<Stoppable>();

/** Registers `stop` to run on shutdown; the returned function unregisters it (a worker stopped early). */
export function onShutdown(name: string, stop: Stoppable['stop']): () => void {
  const entry = { name, stop };
  registered.add(entry);
  return () => void registered.delete(entry);
}

/** Stops every registered worker; one that fails is reported and does not keep the others running. */
export async function stopAll(report: (name: string, err: unknown) => void): Promise<void> {
  for (const entry of [...registered].reverse()) {
    registered.delete(entry);
    try {
      await entry.stop();
    } catch (err) {
      report(entry.name, err);
    }
  }
}
