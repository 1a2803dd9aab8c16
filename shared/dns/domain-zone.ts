import { getDomainAndZone } from '../db/repositories/zones.ts';
import { ObjectDoesNotExist } from '../errors.ts';
import type { ZoneDnsState } from '../model/zone-dns.ts';
import { renderZone } from './zone.ts';
import type { VersionedZone, ZoneDnsView, ZoneView } from './zone-view.ts';

/**
 * The zone of a domain in the caller's account (contract 3.6), from one paged Query of the domain's
 * item collection that the table filters to the caller's items (one call when it fits a page). A
 * domain of another customer answers like an unknown one (404 Domain), with the same call and the
 * same empty answer; a domain of the caller's without a zone answers 404 Zone.
 *
 * With a DNS provider (`DNS_PROVIDER`), the zone also says whether the provider serves it as
 * shown (`dns`), read from the same Query. The answer carries the zone's revision, the version of
 * its ETag that a write's `If-Match` names.
 */
export async function domainZone(customer: string, domainName: string): Promise<VersionedZone> {
  const { domain, zone, revision, dns } = await getDomainAndZone(domainName, customer);
  if (!domain) throw new ObjectDoesNotExist('Domain', domainName);
  if (!zone) throw new ObjectDoesNotExist('Zone', domainName);
  const view = renderZone(zone);
  const provider = process.env.DNS_PROVIDER;
  if (provider && provider !== 'sandbox') {
    view.dns = dnsView(provider, revision ?? 0, dns);
    if (zone.dnssec && dns?.provider === provider && dns.dnskeys?.length) view.keyData = keyDataOf(dns.dnskeys);
  }
  return { view, revision: revision ?? 0 };
}

/** DNSKEY records (`257 3 13 <base64>`) as a domain's `keyData` reads them. */
export function keyDataOf(dnskeys: readonly string[]): NonNullable<ZoneView['keyData']> {
  return dnskeys.flatMap((dnskey) => {
    const [flags, protocol, algorithm, ...key] = dnskey.trim().split(/\s+/);
    const numbers = [flags, protocol, algorithm].map(Number);
    if (key.length === 0 || numbers.some((n) => !Number.isInteger(n))) return [];
    return [{ flags: numbers[0] as number, protocol: numbers[1] as number, algorithm: numbers[2] as number, publicKey: key.join('') }];
  });
}

/** The zone's standing as its owner reads it: served only when the provider took this revision of it. */
export function dnsView(provider: string, revision: number, state: ZoneDnsState | undefined): ZoneDnsView {
  if (!state || state.provider !== provider) return { provider, status: 'pending' };
  const current = state.servedRevision !== undefined && state.servedRevision >= revision;
  const failing = !current && state.failedRevision !== undefined && state.failedRevision >= revision;
  return {
    provider,
    status: current ? 'served' : failing ? state.status : 'pending',
    ...(state.servedSince !== undefined && { servedSince: state.servedSince }),
    ...(state.servedDate !== undefined && { servedDate: state.servedDate }),
    ...(!current && state.reason !== undefined && { reason: state.reason }),
    ...(!current && state.failedSince !== undefined && { failedSince: state.failedSince }),
    ...(state.ds && state.ds.length > 0 && { ds: state.ds }),
  };
}
