import Negotiator from 'negotiator';
import { toZoneFile } from '../../shared/dns/zone-file.ts';
import type { ZoneView } from '../../shared/dns/zone-view.ts';
import { ok, okText, type Reply } from '../../shared/http/response.ts';

/** JSON first: it is the answer to no Accept header, to `*\/*` and to anything we cannot serve. */
const available = ['application/json', 'text/dns', 'text/plain'];

/**
 * The zone in the representation the caller accepts: JSON (contract 3.6), or with `Accept: text/dns`
 * (or `text/plain`) an RFC 1035 zone file. `Vary: Accept` tells caches that the URL has two.
 */
export function zoneReply(domainName: string, zone: ZoneView, accept: string | undefined): Reply {
  const type = accept ? new Negotiator({ headers: { accept } }).mediaType(available) : undefined;
  const headers = { Vary: 'Accept' };
  if (type === 'text/dns' || type === 'text/plain') return okText(toZoneFile(domainName, zone), `${type}; charset=utf-8`, headers);
  return ok(zone, headers);
}
