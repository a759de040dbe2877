import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Keeps tenants' webhook targets off our own network. Only public unicast addresses are
 * reachable: ipaddr.js classifies every special range (loopback, private, link-local with the
 * 169.254.169.254 metadata address, CGNAT, unique-local fc00::/7 with fd00:ec2::254, multicast,
 * reserved, NAT64/6to4/Teredo that can embed a private IPv4...) as something other than `unicast`,
 * and IPv4-mapped IPv6 addresses are judged as the IPv4 they carry. Hosts listed in
 * WEBHOOK_ALLOWED_HOSTS are exempt (local receivers, tests) and may use plain http.
 */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/%.*$/, '');
  if (!ipaddr.isValid(bare)) return false;
  const parsed = ipaddr.process(bare);
  // IPv4-compatible IPv6 (::/96, deprecated by RFC 4291 2.5.5.1, e.g. ::127.0.0.1) carries an IPv4
  // as the mapped and NAT64 forms do, but ipaddr.js calls it unicast: never a webhook target.
  if (parsed.kind() === 'ipv6' && parsed.match(IPV4_COMPATIBLE)) return false;
  return parsed.range() === 'unicast';
}

const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/** The URL's host as compared with WEBHOOK_ALLOWED_HOSTS: lower case, IPv6 without brackets. */
export const hostOf = (url: URL) => url.hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');

export const isAllowedHost = (url: URL, allowedHosts: string[]) => allowedHosts.includes(hostOf(url));

/** This machine: what an organization with `loopback_webhooks` may also reach (a local receiver while developing). */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '::1'];

/** The hosts an organization's endpoints may use besides public https ones. */
export const hostsAllowedFor = (allowedHosts: string[], loopbackWebhooks: boolean): string[] =>
  loopbackWebhooks ? [...new Set([...allowedHosts, ...LOOPBACK_HOSTS])] : allowedHosts;

/** Why a URL may not be a webhook target, judged without DNS; undefined when it may. */
export function urlProblem(raw: string, allowedHosts: string[]): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not an absolute URL';
  }
  const allowed = isAllowedHost(url, allowedHosts);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowed)) {
    return allowed ? 'must use http or https' : 'must use https (plain http only for hosts listed in WEBHOOK_ALLOWED_HOSTS)';
  }
  if (url.username || url.password) return 'must not carry credentials';
  const host = hostOf(url);
  if (!allowed && ipaddr.isValid(host) && !isPublicAddress(host)) return `points at ${host}, a loopback, private, link-local or otherwise non-public address`;
  return undefined;
}

function resolveAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => dnsLookup(host, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));
}

/**
 * At creation: a name that resolves to a non-public address is refused. A name that does not
 * resolve (yet) is accepted; every delivery checks the address it connects to anyway.
 */
export async function resolvedProblem(raw: string, allowedHosts: string[]): Promise<string | undefined> {
  const url = new URL(raw);
  const host = hostOf(url);
  if (isAllowedHost(url, allowedHosts) || ipaddr.isValid(host)) return undefined;
  const addresses = await resolveAll(host).catch(() => []);
  const bad = addresses.find((a) => !isPublicAddress(a.address));
  return bad ? `resolves to ${bad.address}, a loopback, private, link-local or otherwise non-public address` : undefined;
}

export class RefusedAddressError extends Error {
  readonly code = 'EREFUSEDADDRESS';
}

/**
 * A `lookup` for http(s).request: resolves the name and refuses the connection when any address
 * is not public, so the address checked is the address connected to (no second resolution an
 * attacker's DNS could answer differently). IP literals never reach a lookup: urlProblem checks them.
 */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  // Node's own lookup answers an error alone, without an address: net's type for the callback
  // makes the address required.
  const answer = callback as (err: NodeJS.ErrnoException | null, address?: string | LookupAddress[], family?: number) => void;
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return answer(err);
    const list = addresses as LookupAddress[];
    const bad = list.find((a) => !isPublicAddress(a.address));
    if (bad || !list.length) {
      return answer(new RefusedAddressError(`${hostname} resolves to ${bad?.address ?? 'nothing'}, which webhooks may not reach`));
    }
    if (options.all) return answer(null, list);
    answer(null, list[0].address, list[0].family);
  });
};
