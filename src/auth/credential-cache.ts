import pg from 'pg';
import type { Caller } from './caller';
import { REVOCATION_CHANNEL, localRevocations } from './revocation';

export interface CredentialCacheOptions {
  /** How long a credential found live is trusted without asking again: the safety net under NOTIFY. */
  ttlMs?: number;
  /** Entries kept at most (then the cache starts over). */
  maxEntries?: number;
  /** Wait before subscribing again after the LISTEN connection was lost. */
  retryMs?: number;
}

/** How long a credential found live is trusted by default (CredentialCacheOptions.ttlMs). */
export const CREDENTIAL_TTL_MS = 10_000;

interface Entry {
  caller: Caller;
  /** Trusted until then (ms since the epoch): the TTL, or a token's own expiry if sooner. */
  until: number;
}

/**
 * Credential -> caller, for credentials found live in the database, so a request does not cost a
 * round trip to authenticate. Revocation stays immediate on every instance: the cache is only used
 * while its LISTEN connection is subscribed to revocations (revocation.ts), and forgets everything
 * on each notification; when that connection is lost, the cache is flushed and bypassed until it
 * has subscribed again. A TTL bounds what a missed notification could cost.
 *
 * `lookup` returns a generation with each miss: a caller is stored only if no revocation arrived
 * while it was being looked up (else a lookup that read a row just before the revocation committed
 * could store it after the flush).
 */
export class CredentialCache {
  private entries = new Map<string, Entry>();
  private generation = 0;
  private listener: pg.Client | undefined;
  private listening = false;
  private closed = false;
  private retry: NodeJS.Timeout | undefined;
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly retryMs: number;
  private readonly onLocal = () => this.flush();

  constructor(
    private readonly connection: pg.ClientConfig | undefined,
    options: CredentialCacheOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? CREDENTIAL_TTL_MS;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.retryMs = options.retryMs ?? 1000;
    localRevocations.on('revoked', this.onLocal);
  }

  /** True while revocations reach this cache (it is in use). */
  get active(): boolean {
    return this.listening && !this.closed;
  }

  /** Subscribes to revocations; resolves once subscribed (or failed: it retries in the background). */
  async start(): Promise<void> {
    if (!this.connection) return;
    await this.subscribe();
  }

  get(credential: string, now = Date.now()): Caller | undefined {
    if (!this.active) return undefined;
    const entry = this.entries.get(credential);
    if (!entry) return undefined;
    if (entry.until <= now) {
      this.entries.delete(credential);
      return undefined;
    }
    return entry.caller;
  }

  /** The generation to pass to `set` after looking a credential up. */
  begin(): number {
    return this.generation;
  }

  set(credential: string, caller: Caller, generation: number, expiresAt = Infinity): void {
    if (!this.active || generation !== this.generation) return;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(credential, { caller, until: Math.min(Date.now() + this.ttlMs, expiresAt) });
  }

  flush(): void {
    this.generation++;
    this.entries.clear();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listening = false;
    this.flush();
    localRevocations.off('revoked', this.onLocal);
    clearTimeout(this.retry);
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
  }

  private async subscribe(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ ...this.connection, application_name: 'procurement-api-revocations' });
    this.listener = client;
    const lost = () => {
      if (this.listener !== client) return;
      this.listener = undefined;
      this.listening = false;
      this.flush();
      client.end().catch(() => undefined);
      if (!this.closed) this.retry = setTimeout(() => void this.subscribe(), this.retryMs);
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', (msg) => {
      if (msg.channel === REVOCATION_CHANNEL) this.flush();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${REVOCATION_CHANNEL}`);
      if (this.listener !== client) return;
      // Anything cached before this point may have missed a revocation.
      this.flush();
      this.listening = true;
    } catch {
      lost();
    }
  }
}
