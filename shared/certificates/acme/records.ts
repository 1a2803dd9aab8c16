import { absoluteName, type DnsProvider, putRecordSet, removeRecordSet } from '../../dns/provider.ts';
import type { AuthorityOrder } from '../../model/certificate-process.ts';

/**
 * The dns-01 records of an order in the caller's managed zones, through the DNS integration:
 * published, asked whether served, removed. Several orders may publish values under one name at
 * once (two certificates naming one domain renew together): each keeps the others' values.
 */

type RecordSet = { zone: string; name: string; values: string[] };
type Published = NonNullable<AuthorityOrder['published']>;

/** The TXT value as it is served (quoted). */
const quoted = (value: string) => `"${value}"`;

export class ChallengeRecords {
  constructor(private readonly provider: () => Promise<DnsProvider>) {}

  /** Publishes the order's records; answers the provider's handles of them. */
  async publish(order: AuthorityOrder): Promise<Published> {
    const published: Published = [];
    const sets = [...recordSets(order).values()];
    if (sets.length === 0) return published;
    const dns = await this.provider();
    for (const set of sets) {
      const handle = await changeTxt(dns, set, true);
      published.push({ zone: handle.zone, ...(handle.id !== undefined ? { id: handle.id } : {}) });
    }
    return published;
  }

  /** Whether every record the order published is served. */
  async served(order: AuthorityOrder): Promise<boolean> {
    if ((order.published ?? []).length === 0) return true;
    const dns = await this.provider();
    for (const handle of order.published ?? []) if (!(await dns.isServed(handle))) return false;
    return true;
  }

  /** Removes the challenge records the order published (a record already gone is no error). */
  async remove(order: AuthorityOrder): Promise<void> {
    if ((order.published ?? []).length === 0) return;
    const dns = await this.provider();
    for (const set of recordSets(order).values()) await changeTxt(dns, set, false);
  }
}

/** The TXT records of the challenges in managed zones, one record set per name (a wildcard and its base share one). */
function recordSets(order: AuthorityOrder): Map<string, RecordSet> {
  const sets = new Map<string, RecordSet>();
  for (const c of order.challenges) {
    if (c.zone === undefined) continue;
    const key = `${c.zone} ${c.record}`;
    const set = sets.get(key) ?? { zone: c.zone, name: c.record, values: [] };
    if (!set.values.includes(quoted(c.value))) set.values.push(quoted(c.value));
    sets.set(key, set);
  }
  return sets;
}

/**
 * Adds (or takes away) this order's values in the TXT record set of a name, keeping the values
 * other orders for the same name published meanwhile: read, merged, written, one change at a time
 * per zone within this process.
 */
function changeTxt(dns: DnsProvider, set: RecordSet, add: boolean) {
  const zone = absoluteName(set.zone);
  const name = absoluteName(set.name);
  return serialized(zone, async () => {
    const served = (await dns.zone(zone))?.recordSets.find((r) => r.name === name && r.type === 'TXT')?.values ?? [];
    const others = served.filter((value) => !set.values.includes(value));
    const values = add ? [...others, ...set.values] : others;
    if (values.length > 0) return putRecordSet(dns, zone, { name, type: 'TXT', ttl: 60, values });
    if (served.length === 0) return { zone };
    return removeRecordSet(dns, zone, { name, type: 'TXT', ttl: 60, values: served });
  });
}

const zoneQueues = new Map<string, Promise<unknown>>();

/** Runs `fn` after every change to the same zone started before it in this process. */
function serialized<T>(zone: string, fn: () => Promise<T>): Promise<T> {
  const previous = zoneQueues.get(zone) ?? Promise.resolve();
  const next = previous.catch(() => undefined).then(fn);
  zoneQueues.set(zone, next);
  next
    .finally(() => {
      if (zoneQueues.get(zone) === next) zoneQueues.delete(zone);
    })
    .catch(() => undefined);
  return next;
}
