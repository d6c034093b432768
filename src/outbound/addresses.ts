// Which addresses an outbound call made for an app may reach: none that is private, loopback,
// link-local or otherwise not on the public internet, unless the operator allows them
// (TESSERA_FUNCTIONS_ALLOW_PRIVATE=true, for local development and tests). Otherwise an app
// could make the server call into its own network (SSRF): a cloud metadata service, a database.

import { BlockList, isIP } from 'node:net';

const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local: cloud metadata services live here
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96], // NAT64 reaches IPv4 addresses, private ones included
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local
  ['ff00::', 8], // multicast
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

/** Whether an IP address is not on the public internet (IPv4-mapped IPv6 addresses as their IPv4). */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return NOT_PUBLIC.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

/** A URL's host as an IP address when it is one (`[::1]` → `::1`); undefined for a name. */
export function literalAddress(url: URL): string | undefined {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return isIP(host) === 0 ? undefined : host;
}

/**
 * Why a URL may not be called, judged on its text alone (a literal private address, a scheme
 * other than http(s)); undefined when it may be tried. A host name is checked again on the
 * address it resolves to at each call.
 */
export function urlProblem(url: URL, allowPrivate: boolean): string | undefined {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'only http and https URLs can be called';
  if (url.username !== '' || url.password !== '') return 'a URL with credentials in it cannot be called';
  const literal = literalAddress(url);
  if (!allowPrivate && literal !== undefined && isPrivateAddress(literal)) {
    return `${literal} is a private, loopback or link-local address (allowed only with TESSERA_FUNCTIONS_ALLOW_PRIVATE=true)`;
  }
  return undefined;
}

/** Whether a host is this machine by name or address (`localhost`, 127.0.0.0/8, ::1). */
export function isLoopbackHost(url: URL): boolean {
  const literal = literalAddress(url);
  if (literal === undefined) return url.hostname === 'localhost' || url.hostname.endsWith('.localhost');
  return literal === '::1' || /^127\./.test(literal) || /^::ffff:127\./i.test(literal);
}
