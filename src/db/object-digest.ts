import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/**
 * An object as its single read returns it, in its RFC 8785 (JSON Canonicalization Scheme) form by
 * the `canonicalize` package (the RFC authors' reference implementation for JavaScript), and its
 * digest: lowercase hex SHA-256 of that text. One function for every use (the object states the
 * feed keeps, their backfill, the entity tags of single reads), so the reconciliation digests
 * (GET /reconciliation/{resource}) and the entity tags can never disagree on what "the same
 * object" means, and a caller that stores the text never serializes the object twice.
 */
export function canonicalForm(object: unknown): { text: string; digest: string } {
  const text = canonicalize(object);
  if (text === undefined) throw new TypeError('canonicalForm: the value has no JSON form');
  return { text, digest: createHash('sha256').update(text, 'utf8').digest('hex') };
}

/** The digest of an object as its single read returns it (canonicalForm). */
export function objectDigest(object: unknown): string {
  return canonicalForm(object).digest;
}

/** canonicalForm of the objects of one write, each object (by identity) put in that form once. */
export type FormOf = (object: unknown) => { text: string; digest: string };

/**
 * A canonicalForm that remembers the objects it was given (by identity; they must not change
 * after): a write's reply is its ETag's object and its feed entry's `data`, put in form once.
 */
export function onceEach(): FormOf {
  const seen = new WeakMap<object, { text: string; digest: string }>();
  return (object) => {
    if (typeof object !== 'object' || object === null) return canonicalForm(object);
    let form = seen.get(object);
    if (!form) seen.set(object, (form = canonicalForm(object)));
    return form;
  };
}
