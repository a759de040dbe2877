import canonicalizeModule from 'canonicalize';
import { createHash } from 'node:crypto';

// canonicalize is CommonJS (`module.exports = serialize`) typed as if it had a default export: from
// ESM its default import is the function itself.
const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * An object's digest as the service computes it (GET /reconciliation, entity tags): the lowercase
 * hex SHA-256 of its RFC 8785 (JSON Canonicalization Scheme) form, by `canonicalize`, the
 * implementation the service uses. Give it the object exactly as its single read (or the feed's
 * `data`) returned it.
 */
export function objectDigest(object: unknown): string {
  const text = canonicalize(object);
  if (text === undefined) throw new TypeError('objectDigest: the value has no JSON form');
  return sha256(text);
}

/** A set's digest: SHA-256 of one line `<id>:<digest>\n` per object, in the order given (sorted by id). */
export function setDigest(rows: readonly { id: string; digest: string }[], from = 0, to = rows.length): string {
  const hash = createHash('sha256');
  for (let i = from; i < to; i++) hash.update(`${rows[i].id}:${rows[i].digest}\n`, 'utf8');
  return hash.digest('hex');
}
