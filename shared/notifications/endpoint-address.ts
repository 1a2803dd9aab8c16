import { BlockList, isIP } from 'node:net';

/**
 * Where a webhook may point (no SSRF): an `https` URL whose host resolves, at every delivery, to
 * public unicast addresses only. Private, loopback, link-local, shared, documentation, multicast
 * and reserved ranges are refused, IPv4 and IPv6 (and IPv4 inside IPv6: mapped, NAT64). The one
 * exception is for trying webhooks out locally: with `WEBHOOKS_ALLOW_LOOPBACK=true` (set by
 * `npm start` when asked, and by the tests; never by the stack), `http://127.0.0.1:<port>/...`.
 */

// One list per family: Node compares an IPv4 address with IPv6 rules too (as IPv4-mapped), so
// the IPv6 rules (which refuse every mapped address) must never see an IPv4 address.
const blocked4 = new BlockList();
const blocked6 = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked4.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 127],
  ['::ffff:0:0', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  blocked6.addSubnet(net, prefix, 'ipv6');
}

/** Whether an address is public unicast (what a webhook may be delivered to). */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return family === 4 ? !blocked4.check(address, 'ipv4') : !blocked6.check(address, 'ipv6');
}

/** Whether loopback receivers are allowed (`WEBHOOKS_ALLOW_LOOPBACK=true`: local trials and tests only). */
export function loopbackAllowed(): boolean {
  return process.env.WEBHOOKS_ALLOW_LOOPBACK === 'true';
}

export const loopbackHost = '127.0.0.1';
/** Said with a refused local or http receiver: how a local sandbox takes one. */
export const localReceiverHint = ` (a local sandbox takes http://${loopbackHost}:<port>/... when started with WEBHOOKS_ALLOW_LOOPBACK=true)`;
export const maxUrlLength = 2048;

/** Why a URL cannot be a webhook endpoint, or undefined when it can (its host is resolved at each delivery). */
export function endpointUrlProblem(text: string): string | undefined {
  if (text.length > maxUrlLength) return `must be at most ${maxUrlLength} characters long`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute https URL';
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const loopback = loopbackAllowed() && host === loopbackHost;
  // A receiver on this machine is what a local trial points to: say how the sandbox takes one.
  const local = host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\./.test(host);
  const howLocally = !loopbackAllowed() && (local || url.protocol === 'http:') ? localReceiverHint : '';
  if (url.protocol !== 'https:' && !(loopback && url.protocol === 'http:')) return `must be an https URL${howLocally}`;
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  if (url.hash !== '') return 'must not have a fragment';
  if (isIP(host) !== 0 && !isPublicAddress(host) && !loopback) return `must point to a public address${local ? howLocally : ''}`;
  if (isIP(host) === 0 && (host === 'localhost' || host.endsWith('.localhost') || !host.includes('.')))
    return `must name a public host${local ? howLocally : ''}`;
  return undefined;
}

/** Whether an address a delivery resolved may be connected to (public, or the allowed loopback). */
export function deliverableAddress(address: string): boolean {
  return isPublicAddress(address) || (loopbackAllowed() && address === loopbackHost);
}
