import { createHash } from 'node:crypto';

/**
 * Feed cursors: opaque to clients and bound to one organization. A cursor is base64url of the
 * position (8 bytes, big-endian) followed by the first 8 bytes of sha256(organization id, position),
 * so a cursor of another organization, or an edited one, does not decode (it is rejected like a
 * malformed one) while decoding needs no lookup.
 */
const TAG_BYTES = 8;

const tag = (orgId: string, position: number) =>
  createHash('sha256').update(`${orgId.toLowerCase()}:${position}`).digest().subarray(0, TAG_BYTES);

export function encodeCursor(orgId: string, position: number): string {
  const buf = Buffer.alloc(8 + TAG_BYTES);
  buf.writeBigUInt64BE(BigInt(position));
  tag(orgId, position).copy(buf, 8);
  return buf.toString('base64url');
}

/** The position a cursor stands for, or undefined when it is malformed or another organization's. */
export function decodeCursor(orgId: string, cursor: string): number | undefined {
  if (typeof cursor !== 'string' || !/^[A-Za-z0-9_-]{22}$/.test(cursor)) return undefined;
  const buf = Buffer.from(cursor, 'base64url');
  // Canonical form only: the last character's spare bits could otherwise spell one cursor four ways.
  if (buf.length !== 8 + TAG_BYTES || buf.toString('base64url') !== cursor) return undefined;
  const big = buf.readBigUInt64BE();
  if (big > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
  const position = Number(big);
  return tag(orgId, position).equals(buf.subarray(8)) ? position : undefined;
}
