import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import * as v from 'valibot';

/**
 * The one rule for every address a customer gives (a webhook's host and every address it resolves
 * to at delivery, `zone.master`): public unicast only, never one that reaches inside a network.
 * The ranges are ipaddr.js's (RFC 6890 and the IANA registries): loopback, private, link-local
 * (the instance metadata service 169.254.169.254), carrier-grade NAT, unique-local, the deprecated
 * site-local fec0::/10, multicast, unspecified, broadcast, benchmarking, documentation (RFC 5737,
 * RFC 3849) and the other reserved ranges. An IPv4-mapped address (::ffff:a.b.c.d) is judged as
 * the IPv4 address it is. Every other IPv6 form that carries an IPv4 address is refused whatever
 * it carries, since a translator or relay would deliver to that IPv4 address: SIIT
 * ::ffff:0:0:0/96, NAT64 64:ff9b::/96 and 64:ff9b:1::/48, 6to4 2002::/16, Teredo 2001::/32, and the
 * IPv4-compatible ::/96, the one range ipaddr.js does not name (it is deprecated: RFC 4291 2.5.5.1).
 * A URL's host is normalised by the WHATWG URL parser first, so decimal, octal and hex IPv4
 * spellings (2130706433, 0177.0.0.1, 0x7f.1) reach this rule as the address they are.
 */

const ipv4Compatible = ipaddr.parseCIDR('::/96');

/** RFC 5737 and RFC 3849: reach nothing anywhere; only the operator's own dataset may name them. */
const documentation = [
  ipaddr.parseCIDR('192.0.2.0/24'),
  ipaddr.parseCIDR('198.51.100.0/24'),
  ipaddr.parseCIDR('203.0.113.0/24'),
  ipaddr.parseCIDR('2001:db8::/32'),
] as const;

/** True for an IPv4 or IPv6 address that is public unicast. */
export function isPublicUnicast(address: string): boolean {
  // Strictly formed addresses only: ipaddr.js would also read 0x7f.1 or 2130706433 as addresses.
  if (isIP(address) === 0) return false;
  // `process` turns an IPv4-mapped IPv6 address (::ffff:127.0.0.1) into the IPv4 address it carries.
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv6' && parsed.match(ipv4Compatible)) return false;
  return parsed.range() === 'unicast';
}

/** Public unicast, or in a documentation range (the demo dataset's addresses, which nothing can reach). */
function isPublicOrDocumentation(address: string): boolean {
  if (isPublicUnicast(address)) return true;
  if (isIP(address) === 0) return false;
  const parsed = ipaddr.process(address);
  return documentation.some(([network, bits]) => parsed.kind() === network.kind() && parsed.match(network, bits));
}

const notPublic = 'must be a public unicast address (not loopback, private, link-local, multicast or reserved)';

/** `zone.master` in a request: an IPv4 or IPv6 address (strictly formed) that is public unicast. */
export const PublicUnicastAddress = v.pipe(
  v.string(),
  v.ip('must be an IPv4 or IPv6 address'),
  // Judged only when it is an address at all (v.ip reports the others), so a value gets one violation.
  v.check((address) => isIP(address) === 0 || isPublicUnicast(address), notPublic),
);

/**
 * `zone.master` in the operator's dataset (`npm run admin -- load`, the demo data): the same rule,
 * but the documentation ranges are allowed, so the demo's hidden master reaches nothing.
 */
export const DatasetMasterAddress = v.pipe(
  v.string(),
  v.ip('must be an IPv4 or IPv6 address'),
  v.check((address) => isIP(address) === 0 || isPublicOrDocumentation(address), notPublic),
);

/**
 * Whether the service may transfer a zone from this master: public unicast, by the rule above. The
 * one exception is for trying a retrieve out locally: with `ZONE_MASTER_ALLOW_LOOPBACK=true` (local
 * trials and tests only; never set by the stack), 127.0.0.1 and ::1 too.
 */
export function zoneMasterAllowed(address: string): boolean {
  if (isIP(address) === 0) return false;
  if (isPublicUnicast(address)) return true;
  return process.env.ZONE_MASTER_ALLOW_LOOPBACK === 'true' && (address === '127.0.0.1' || address === '::1');
}

/** `zone.master` in a request: an IPv4 or IPv6 address (strictly formed) the service may transfer from (zoneMasterAllowed). */
export const ZoneMasterAddress = v.pipe(
  v.string(),
  v.ip('must be an IPv4 or IPv6 address'),
  v.check((address) => isIP(address) === 0 || zoneMasterAllowed(address), notPublic),
);
