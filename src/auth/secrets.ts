import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A random, high-entropy secret with a readable prefix (256 bits). */
export const newSecret = (prefix: string) => `${prefix}_${randomBytes(32).toString('base64url')}`;
/** A shorter public identifier (OAuth client ids). */
export const newPublicId = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

/**
 * Secrets are stored only as SHA-256 hashes. They carry 256 bits of entropy, so a fast hash is
 * safe (a slow KDF protects low-entropy passwords, not random keys) and keeps lookups to one index.
 */
export const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');

export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** JWT_SECRET, or one generated once and kept beside the embedded data (git-ignored). */
export function resolveJwtSecret(configured: string | undefined, dataDir: string): string {
  if (configured) return configured;
  const file = join(dataDir, 'jwt-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, secret + '\n', { mode: 0o600 });
  return secret;
}
