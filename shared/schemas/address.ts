import ipaddr from 'ipaddr.js';
import * as v from 'valibot';

/**
 * A hidden master's address (spec 2.2 `zone.master`): the service's name servers would connect to
 * it for zone transfers, so it must be a public unicast address, never one that reaches inside a
 * network (loopback, private, link-local such as the instance metadata service 169.254.169.254,
 * carrier-grade NAT, unique-local, multicast, unspecified, broadcast, 6to4 / NAT64 / Teredo
 * wrappers, reserved ranges). The ranges are ipaddr.js's (RFC 6890 and the IANA registries); an
 * IPv4-mapped IPv6 address is judged as the IPv4 address it carries.
 *
 * Decision: the documentation ranges (RFC 5737 192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24;
 * RFC 3849 2001:db8::/32) are accepted. They reach nothing anywhere, so they cannot be used to
 * aim the service at an internal host, and they are the addresses examples and the sandbox use.
 */

const documentation = [
  ipaddr.parseCIDR('192.0.2.0/24'),
  ipaddr.parseCIDR('198.51.100.0/24'),
  ipaddr.parseCIDR('203.0.113.0/24'),
  ipaddr.parseCIDR('2001:db8::/32'),
] as const;

/** True for an IPv4 or IPv6 address that is public unicast (or in a documentation range). */
export function isPublicUnicast(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  // `process` turns an IPv4-mapped IPv6 address (::ffff:127.0.0.1) into the IPv4 address it carries.
  const parsed = ipaddr.process(address);
  if (parsed.range() === 'unicast') return true;
  return documentation.some(([network, bits]) => parsed.kind() === network.kind() && parsed.match(network, bits));
}

/** `zone.master`: an IPv4 or IPv6 address (strictly formed) that is public unicast. */
export const PublicUnicastAddress = v.pipe(
  v.string(),
  v.ip('must be an IPv4 or IPv6 address'),
  // Judged only when it is an address at all (v.ip reports the others), so a value gets one violation.
  v.check(
    (address) => !ipaddr.isValid(address) || isPublicUnicast(address),
    'must be a public unicast address (not loopback, private, link-local, multicast or reserved)',
  ),
);
