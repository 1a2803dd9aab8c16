import type { Principal } from '../auth/principal.ts';
import { type CommitWith, commitNothing, itemsOf } from '../db/repositories/commit-with.ts';
import { allocateProcessId } from '../db/repositories/processes.ts';
import { getZoneDnsState } from '../db/repositories/zone-dns.ts';
import { recordKeyRolloverStarted } from '../db/repositories/zone-key-rollover.ts';
import { getZoneHeadById } from '../db/repositories/zones.ts';
import { ObjectDoesNotExist, ObjectStatusProhibitsOperation, ProviderUnavailable } from '../errors.ts';
import type { Outcome, ProcessRecord } from '../model/process.ts';
import type { ProcessView } from '../processes/process-view.ts';
import { processViewOf } from '../processes/view.ts';
import { now, toWireTime } from '../time.ts';
import { keyRolloverProviders } from './provider.ts';

/**
 * A key rollover of a signed zone of the caller (`POST /v2/dns/zones/{id}/key-rollover`, the PHP
 * client's dnsZones->keyRollover), the double-DS way (RFC 7583 4.1.2):
 *
 * 1. here: a process `dnsZone` / `keyRollover` starts (RUNNING, statusDetail WAITING_FOR_DS), and the
 *    zone's header records the rollover (`publish`, the DNSKEYs served now to retire later), its
 *    revision raised, in one transaction;
 * 2. the DNS sync adds a new signing key at the provider; both keys sign, so answers validate with
 *    either; the push that first serves the new key writes the notification `DnsZoneKeyRolloverEvent`
 *    (WAITING_FOR_DS) with the DS records of both keys (the zone's `dns.ds` and `keyData` show them);
 * 3. the customer puts the new DS at the parent and acknowledges it (`POST
 *    /v2/processes/{id}/ack-ds-update`, shared/dns/ack-ds-update.ts): the process completes, and the
 *    sync removes the old key.
 *
 * Refused (400 ObjectStatusProhibitsOperation): an unsigned zone, a zone whose keys are not served
 * yet, a rollover while one waits for its DS or is still retiring its old key, a DNS provider whose
 * keys the service does not roll (Route 53, the sandbox).
 */

/** What a rollover's start answers: the process it started (202, `x-process-id`). */
export type KeyRolloverOutcome = Outcome<never, ProcessView>;

const maxAttempts = 5;

export async function startKeyRollover(
  principal: Principal,
  id: number,
  commitWith: CommitWith<KeyRolloverOutcome> = commitNothing,
): Promise<KeyRolloverOutcome> {
  let processId: number | undefined;
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    const head = await getZoneHeadById(principal.customer, id);
    if (!head) throw new ObjectDoesNotExist('Zone', String(id));
    const { domainName, dnssec, keyRollover } = head.zone;
    if (!dnssec)
      throw new ObjectStatusProhibitsOperation(`The zone ${domainName} is not signed (dnssec: false): it has no key to roll over.`);
    if (keyRollover?.stage === 'publish') {
      throw new ObjectStatusProhibitsOperation(
        `A key rollover of the zone ${domainName} waits for its DS (process ${keyRollover.processId}): acknowledge it with ack-ds-update first.`,
      );
    }
    // The provider that serves the zone now (the sync records it with the keys it serves).
    const state = await getZoneDnsState(domainName);
    const served = state?.status === 'served' ? (state.dnskeys ?? []) : [];
    if (served.length === 0) {
      throw new ObjectStatusProhibitsOperation(
        `The keys of the zone ${domainName} are not served yet; try again when dns.status is served.`,
      );
    }
    if (!keyRolloverProviders.includes(state?.provider ?? '')) {
      throw new ObjectStatusProhibitsOperation(
        `The DNS provider that serves the zone (${state?.provider}) does not roll keys over; only ${keyRolloverProviders.join(', ')} does.`,
      );
    }
    if (keyRollover?.stage === 'retire' && served.some((key) => keyRollover.retire.includes(key))) {
      throw new ObjectStatusProhibitsOperation(
        `The previous key rollover of the zone ${domainName} is still retiring its old key; try again in a moment.`,
      );
    }
    processId ??= await allocateProcessId();
    const at = toWireTime(now());
    const record: ProcessRecord = {
      id: processId,
      customer: principal.customer,
      user: principal.user,
      type: 'dnsZone',
      action: 'keyRollover',
      identifier: domainName,
      status: 'RUNNING',
      createdDate: at,
      updatedDate: at,
      billables: [],
      command: { zoneId: id },
      details: { zoneId: id, retire: served },
    };
    const outcome: KeyRolloverOutcome = { started: { processId, completed: false, view: processViewOf(record) } };
    const refused = await recordKeyRolloverStarted(
      head,
      { processId, stage: 'publish', retire: served, startedDate: at },
      record,
      itemsOf(commitWith(outcome)),
    );
    if (!refused) return outcome;
  }
  throw new ProviderUnavailable('The zone kept changing while the key rollover was started; retry.');
}
