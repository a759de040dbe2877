import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/**
 * The digest of an object as its single read returns it: lowercase hex SHA-256 of its RFC 8785
 * (JSON Canonicalization Scheme) serialization, by the `canonicalize` package (the RFC authors'
 * reference implementation for JavaScript). One function for every use, so the reconciliation
 * digests (GET /reconciliation/{resource}) and the entity tags of single reads can never disagree
 * on what "the same object" means.
 */
export function objectDigest(object: unknown): string {
  const text = canonicalize(object);
  if (text === undefined) throw new TypeError('objectDigest: the value has no JSON form');
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** A set's digest: SHA-256 of one `<id>:<objectDigest>\n` line per object, sorted by id (byte order). */
export function setDigest(objects: { id: string; digest: string }[]): string {
  const sorted = [...objects].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const hash = createHash('sha256');
  for (const o of sorted) hash.update(`${o.id}:${o.digest}\n`, 'utf8');
  return hash.digest('hex');
}
