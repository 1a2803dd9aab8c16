import Negotiator from 'negotiator';
import { zoneVersion } from '../../shared/dns/zone.ts';
import { toZoneFile } from '../../shared/dns/zone-file.ts';
import type { VersionedZone } from '../../shared/dns/zone-view.ts';
import { ok, okText, type Reply } from '../../shared/http/response.ts';

/** JSON first: it is the answer to no Accept header, to `*\/*` and to anything we cannot serve. */
const available = ['application/json', 'text/dns', 'text/plain'];

/**
 * The zone in the representation the caller accepts: JSON (contract 3.6), or with `Accept: text/dns`
 * (or `text/plain`) an RFC 1035 zone file. `Vary: Accept` tells caches that the URL has two. Both
 * carry the zone's revision in their ETag (`"r12.<hash>"`), which a write's `If-Match` names.
 */
export function zoneReply(domainName: string, zone: VersionedZone, accept: string | undefined): Reply {
  const type = accept ? new Negotiator({ headers: { accept } }).mediaType(available) : undefined;
  const headers = { Vary: 'Accept' };
  const version = zoneVersion(zone.revision);
  if (type === 'text/dns' || type === 'text/plain') {
    return { ...okText(toZoneFile(domainName, zone.view), `${type}; charset=utf-8`, headers), version };
  }
  return { ...ok(zone.view, headers), version };
}
