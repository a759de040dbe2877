/** The target of a `Link: <...>; rel="next"` header (RFC 8288), or undefined. */
export function nextOf(link: string | null): string | undefined {
  return link?.match(/^<([^>]*)>;\s*rel="next"$/)?.[1];
}
