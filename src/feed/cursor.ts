import { createHash } from 'node:crypto';

/**
 * A feed cursor: the position of the last entry a reader has, plus a tag binding it to its
 * organization, base64url-encoded. The tag is not a secret (tenancy never depends on it: every
 * read is scoped to the caller's organization anyway); it makes another organization's cursor, or
 * a hand-edited one, a 400 like any malformed cursor instead of a silently different position.
 */
const tagOf = (organizationId: string, position: number) => createHash('sha256').update(`${organizationId}:${position}`).digest('base64url').slice(0, 11);

export function encodeCursor(organizationId: string, position: number): string {
  return Buffer.from(`${position}.${tagOf(organizationId, position)}`).toString('base64url');
}

/** A cursor's position and tag when it has a cursor's form (whichever organization's it is). */
function parts(cursor: string): { position: number; tag: string } | undefined {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(cursor)) return undefined;
  const bytes = Buffer.from(cursor, 'base64url');
  // Only the canonical spelling: a last character differing in bits the decoder ignores (padding
  // bits) is a hand-edited cursor, not the same one.
  if (bytes.toString('base64url') !== cursor) return undefined;
  const match = /^(0|[1-9][0-9]{0,15})\.([A-Za-z0-9_-]{11})$/.exec(bytes.toString('latin1'));
  if (!match) return undefined;
  const position = Number(match[1]);
  return Number.isSafeInteger(position) ? { position, tag: match[2] } : undefined;
}

/** The position a cursor carries, or undefined when it is malformed or another organization's. */
export function decodeCursor(organizationId: string, cursor: string): number | undefined {
  const found = parts(cursor);
  return found && tagOf(organizationId, found.position) === found.tag ? found.position : undefined;
}

/** Whether the value has a cursor's form (the mock, which knows no organization, checks only that). */
export const isCursorShaped = (cursor: string): boolean => parts(cursor) !== undefined;
