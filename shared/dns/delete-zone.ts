import { type CommitWith, itemsOf } from '../db/repositories/commit-with.ts';
import { deleteZoneRecord } from '../db/repositories/zone-writes.ts';
import { getZoneHeadById } from '../db/repositories/zones.ts';
import { ObjectDoesNotExist, ObjectStatusProhibitsOperation, PreconditionFailed, ProviderUnavailable } from '../errors.ts';
import { zoneVersion } from './zone.ts';

/**
 * Deletes a zone of the caller (`DELETE /v2/dns/zones/{id}`, the SDKs' dnsZones->delete): the
 * header and its records leave the table (the header first, in one conditional write with the
 * Idempotency-Key's answer), and the table's stream has the DNS sync remove the zone from the
 * provider within a second. A managed zone (the zone of a domain in the account) is not deleted
 * here: its domain keeps it (400 ObjectStatusProhibitsOperation). `If-Match` as for an update.
 */

/** What a deletion answers: the zone's id and name (the answer is 204, no body; kept for a replay). */
export interface DeletedZone {
  id: number;
  domainName: string;
}

export async function deleteZone(
  customer: string,
  id: number,
  ifMatch: readonly string[] | undefined,
  commitWith: CommitWith<DeletedZone>,
  deadline?: number,
): Promise<DeletedZone> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const head = await getZoneHeadById(customer, id);
    if (!head) throw new ObjectDoesNotExist('Zone', String(id));
    const { domainName } = head.zone;
    if (ifMatch !== undefined && !ifMatch.includes('*') && !ifMatch.includes(zoneVersion(head.revision))) {
      throw new PreconditionFailed(`The zone ${domainName} changed since it was read (it is at revision ${head.revision} now).`);
    }
    if (head.zone.managed) {
      throw new ObjectStatusProhibitsOperation(`The zone ${domainName} is the managed zone of a domain; it goes with the domain.`);
    }
    const deleted: DeletedZone = { id, domainName };
    const refused = await deleteZoneRecord(head, itemsOf(commitWith(deleted)), deadline);
    if (!refused) return deleted;
    if (ifMatch !== undefined) throw new PreconditionFailed(`The zone ${domainName} changed while it was deleted.`);
  }
  throw new ProviderUnavailable('The zone kept changing while it was deleted; retry.');
}
