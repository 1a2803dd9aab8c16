import * as v from 'valibot';
import { DomainName, Handle, WireTime } from '../schemas/primitives.ts';

/**
 * Where a managed zone stands with the DNS provider that serves it (shared/dns/sync.ts keeps it):
 * the zone's revision the provider serves, since when it serves the zone, and, when the last push
 * failed, why. The zone view shows it to the zone's owner (`dns` in GET .../zone).
 *
 * - `served`: the provider serves the zone as the table has it (`servedRevision`).
 * - `pending`: a newer revision is on its way, or the provider was unreachable and the push will be
 *   tried again (the stream's retries, then the reconcile job); `reason` says what failed.
 * - `refused`: the provider refused the zone's newest revision (`reason`, in its words); it serves
 *   the revision before, if any, until the zone changes again or the reconcile job tries again.
 */
export const zoneDnsStatuses = ['served', 'pending', 'refused'] as const;

const Count = v.pipe(v.number(), v.integer(), v.minValue(0));

export const ZoneDnsState = v.object({
  domainName: DomainName,
  customer: Handle,
  /** The provider (`DNS_PROVIDER`) that serves the zone. */
  provider: v.string(),
  status: v.picklist(zoneDnsStatuses),
  /** The zone's revision (shared/db/repositories/zones.ts) the provider serves; absent before the first push. */
  servedRevision: v.optional(Count),
  /** Since when the provider serves the zone (its first accepted push). */
  servedSince: v.optional(WireTime),
  /** When the provider last accepted a push. */
  servedDate: v.optional(WireTime),
  /** The DS records of the zone's signing key, for the parent zone; empty when unsigned. */
  ds: v.optional(v.array(v.string())),
  /** The DNSKEY records of the zone's signing key (`257 3 13 <base64>`), where the provider tells them. */
  dnskeys: v.optional(v.array(v.string())),
  /** Why the last push failed (the provider's words, bounded), the revision it carried and since when it fails. */
  reason: v.optional(v.string()),
  failedRevision: v.optional(Count),
  failedSince: v.optional(WireTime),
  /** A change the provider took but does not serve yet (Route 53 before INSYNC), for `failedRevision`. */
  pendingChange: v.optional(v.string()),
});
export type ZoneDnsState = v.InferOutput<typeof ZoneDnsState>;
