import { getZoneDnsState, recordZonePushFailed, recordZoneServed, removeZoneDnsState } from '../db/repositories/zone-dns.ts';
import { getZoneHead, withRecords } from '../db/repositories/zones.ts';
import { logger } from '../logger.ts';
import { keyRolloverWaitingForDs, type NotificationRecord, zoneRefused } from '../model/notification.ts';
import type { ZoneRecord } from '../model/zone.ts';
import { toWireTime } from '../time.ts';
import { countDnsMetric, dnsMetricNames } from './dns-metrics.ts';
import { plan } from './plan.ts';
import { absoluteName, type ChangeHandle, DnsChangeRefused, type DnsProvider, DnsProviderUnavailable } from './provider.ts';
import { desiredRecordSets } from './record-sets.ts';
import { zoneNameServers } from './zone.ts';

/**
 * Makes the DNS provider serve a zone as the table has it: the one way a zone reaches the
 * provider. The table stays the one source of truth; this follows it.
 *
 * It is told only which zone changed (by the table's stream, or by the reconcile job) and reads
 * the zone as it is now, with its revision (every zone write raises it). A revision the provider
 * already serves is not pushed again (a replayed or late stream record changes nothing); a newer
 * one is compared with what the provider serves (shared/dns/plan.ts) and the difference applied.
 * The revision served is recorded only if it is newer than the one recorded: should two pushes of
 * one zone overlap and the older land last, the newer's recording wins and a second, forced pass
 * makes the provider serve the newest zone again.
 *
 * Every zone of the table is served, managed (a domain's) or not (one made with the zone API); a
 * zone that is removed is removed from the provider.
 *
 * A signed zone's key rollover (the header's `keyRollover`, shared/dns/key-rollover.ts) is carried
 * out here too: in its `publish` stage a new key is added while only the keys to retire are served,
 * and the push that first serves it writes the customer's "waiting for DS" notification with the
 * standing it records (one transaction); in its `retire` stage the old keys are removed once
 * another key is served.
 *
 * Failures: a change the provider refuses is recorded on the zone with the provider's reason
 * (`refused`, visible in GET .../zone), logged and counted for the alarm, and not retried until the
 * zone changes or the reconcile job passes (no hot retry loop). A provider that cannot be reached is
 * recorded (`pending`) and thrown, so the stream retries the push (and the reconcile job after it).
 */

export type SyncOutcome =
  /** The provider already served this revision: nothing was sent. */
  | { kind: 'current'; revision: number }
  /** The provider now serves the revision; `changes` record sets were changed (0: it already served it all). */
  | { kind: 'served'; revision: number; changes: number; created: boolean }
  /** The provider refused the revision. */
  | { kind: 'refused'; revision: number; reason: string }
  /** The zone is gone, and the provider no longer serves it. */
  | { kind: 'removed' }
  /** No zone, and nothing served: nothing to do. */
  | { kind: 'none' };

/** The provider took the change but does not serve it yet: recorded (with the change) where it was seen; retried. */
class NotServedYet extends DnsProviderUnavailable {}

/** Whether the provider serves a change within `waitMs` (polled at growing intervals, from 250 ms). */
async function servedSoon(provider: DnsProvider, handle: ChangeHandle, waitMs: number): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  for (let delay = 250; ; delay = Math.min(delay * 2, 2000)) {
    if (await provider.isServed(handle)) return true;
    if (Date.now() + delay > deadline) return false;
    await new Promise((r) => setTimeout(r, delay));
  }
}

export interface SyncOptions {
  /** How long a push waits for the provider to serve its change (Route 53: INSYNC) before the retry takes over; 5 s. */
  waitMs?: number;
  /** Compare with the provider even when the revision was pushed already (the reconcile job). */
  force?: boolean;
  now?: () => Date;
}

/**
 * The step of a key rollover the provider has yet to take: a new key beside the keys to retire
 * (`publish`), or the keys to retire removed once another is served (`retire`). The zone's keys
 * after it (undefined when nothing changed). Only on a provider that rolls keys.
 */
async function rollKeys(
  provider: DnsProvider,
  zone: ZoneRecord,
  served: readonly string[],
): Promise<{ ds: string[]; dnskeys: string[] } | undefined> {
  const roll = zone.keyRollover;
  if (!zone.dnssec || !roll || !provider.addSigningKey || !provider.removeSigningKeys) return undefined;
  const old = (key: string) => roll.retire.includes(key);
  if (roll.stage === 'publish' && served.every(old)) await provider.addSigningKey(zone.domainName);
  else if (roll.stage === 'retire' && served.some(old) && !served.every(old))
    await provider.removeSigningKeys(zone.domainName, roll.retire);
  else return undefined;
  const after = await provider.zone(zone.domainName);
  if (!after) throw new DnsProviderUnavailable(`${provider.name} did not list the zone ${zone.domainName} after changing its keys`);
  return { ds: after.ds, dnskeys: after.dnskeys ?? [] };
}

/**
 * The "waiting for DS" notification of a rollover whose new key this push serves first (the keys
 * recorded before were only the ones to retire): written with the standing, so exactly once.
 */
function waitingForDs(
  zone: ZoneRecord,
  recorded: readonly string[],
  ds: string[],
  dnskeys: readonly string[],
  at: string,
): { notification: NotificationRecord } | Record<string, never> {
  const roll = zone.keyRollover;
  if (roll?.stage !== 'publish') return {};
  const isNew = (key: string) => !roll.retire.includes(key);
  if (!dnskeys.some(isNew) || recorded.some(isNew)) return {};
  return { notification: keyRolloverWaitingForDs(zone, roll.processId, ds, dnskeys, at) };
}

export async function syncZone(provider: DnsProvider, domainName: string, options: SyncOptions = {}): Promise<SyncOutcome> {
  const { outcome, overtaken } = await syncOnce(provider, domainName, options);
  // Recording lost to a newer push of the same zone that ended first: make sure the newest is served.
  if (overtaken) return (await syncOnce(provider, domainName, { ...options, force: true })).outcome;
  return outcome;
}

async function syncOnce(
  provider: DnsProvider,
  domainName: string,
  options: SyncOptions,
): Promise<{ outcome: SyncOutcome; overtaken?: true }> {
  const clock = options.now ?? (() => new Date());
  const [head, state] = await Promise.all([getZoneHead(domainName, true), getZoneDnsState(domainName)]);
  if (!head) {
    if (!state) return { outcome: { kind: 'none' } };
    await provider.deleteZone(domainName);
    await removeZoneDnsState(domainName);
    return { outcome: { kind: 'removed' } };
  }
  const revision = head.revision;
  if (!options.force && state?.servedRevision !== undefined && state.servedRevision >= revision) {
    return { outcome: { kind: 'current', revision } };
  }

  const zone = await withRecords(head);
  const base = { domainName, customer: zone.customer, zoneId: zone.id, provider: provider.name, revision };
  try {
    // A change of this revision the provider took but did not serve yet: wait for it before anything else.
    if (state?.pendingChange && state.failedRevision === revision) {
      if (!(await provider.isServed({ zone: absoluteName(domainName), id: state.pendingChange }))) {
        throw new NotServedYet(`${provider.name} has not served change ${state.pendingChange} yet`);
      }
    }
    let served = await provider.zone(domainName);
    let created = false;
    if (!served) {
      await provider.createZone(domainName, { nameServers: zoneNameServers(zone).map(absoluteName), dnssec: zone.dnssec });
      created = true;
      served = await provider.zone(domainName);
      if (!served) throw new DnsProviderUnavailable(`${provider.name} did not list the zone ${domainName} it had just created`);
    }
    let { ds, dnskeys } = served;
    if (served.dnssec !== zone.dnssec) {
      ds = await provider.setDnssec(domainName, zone.dnssec);
      // The new key's DNSKEY, where the provider tells it (the switch answers only its DS).
      dnskeys = zone.dnssec ? (await provider.zone(domainName))?.dnskeys : [];
    }
    const rolled = await rollKeys(provider, zone, dnskeys ?? []);
    if (rolled) ({ ds, dnskeys } = rolled);
    const desired = desiredRecordSets(zone);
    const changes = plan(desired, served.recordSets);
    // A change always carries the zone's SOA: its serial is the zone's (a provider that moves serials
    // on every change, as PowerDNS's SOA-EDIT-API does, would otherwise serve one the view does not show).
    // So does a change of the zone's keys: PowerDNS drops its cached answers of a zone on a change of its
    // records, not of its keys, and would answer with the old keys' signatures alone for a while.
    const soa = desired.find((set) => set.type === 'SOA');
    if ((changes.length > 0 || rolled) && soa && !changes.some((c) => c.recordSet.type === 'SOA'))
      changes.push({ action: 'upsert', recordSet: soa });
    if (changes.length > 0) {
      const handle = await provider.applyChanges(domainName, changes);
      if (!(await servedSoon(provider, handle, options.waitMs ?? 5000))) {
        const reason = `${provider.name} is applying the change (${handle.id}); it is not served yet`;
        await recordZonePushFailed({
          ...base,
          status: 'pending',
          reason,
          now: toWireTime(clock()),
          ...(handle.id ? { pendingChange: handle.id } : {}),
        });
        throw new NotServedYet(reason);
      }
    }
    const recorded = await recordZoneServed({
      ...base,
      ds: zone.dnssec ? ds : [],
      ...(zone.dnssec && dnskeys ? { dnskeys } : {}),
      now: toWireTime(clock()),
      ...(zone.dnssec ? waitingForDs(zone, state?.dnskeys ?? [], ds, dnskeys ?? [], toWireTime(clock())) : {}),
    });
    const outcome: SyncOutcome = { kind: 'served', revision, changes: changes.length, created };
    return recorded || options.force ? { outcome } : { outcome, overtaken: true };
  } catch (error) {
    if (error instanceof NotServedYet) throw error;
    if (error instanceof DnsChangeRefused) {
      const now = toWireTime(clock());
      // The customer hears of a refusal once: not again when the same revision is refused again.
      const known = state?.status === 'refused' && state.failedRevision === revision;
      const notification = known ? undefined : zoneRefused(zone, revision, provider.name, error.reason, now);
      await recordZonePushFailed({ ...base, status: 'refused', reason: error.reason, now, ...(notification ? { notification } : {}) });
      countDnsMetric(dnsMetricNames.pushRefused);
      logger.error('the DNS provider refused a zone', { domainName, revision, provider: provider.name, reason: error.reason });
      return { outcome: { kind: 'refused', revision, reason: error.reason } };
    }
    const reason = error instanceof DnsProviderUnavailable ? error.message : 'the push failed unexpectedly';
    await recordZonePushFailed({ ...base, status: 'pending', reason, now: toWireTime(clock()) });
    countDnsMetric(dnsMetricNames.pushFailed);
    logger.warn('a zone push failed; it is retried', { domainName, revision, provider: provider.name, error: error as Error });
    throw error;
  }
}
