import type { Principal } from '../auth/principal.ts';
import { type CommitWith, commitNothing, itemsOf } from '../db/repositories/commit-with.ts';
import { getZoneDnsState } from '../db/repositories/zone-dns.ts';
import { recordDsAcknowledged } from '../db/repositories/zone-key-rollover.ts';
import { getOwnZoneHead } from '../db/repositories/zones.ts';
import { ObjectStatusProhibitsOperation, ProviderUnavailable } from '../errors.ts';
import type { ProcessRecord } from '../model/process.ts';
import { notOffered, ownProcess } from '../processes/own-process.ts';
import type { ProcessView } from '../processes/process-view.ts';
import { processViewOf } from '../processes/view.ts';
import { now, toWireTime } from '../time.ts';

/**
 * The parent publishes the new DS of a key rollover (`POST /v2/processes/{id}/ack-ds-update`, the
 * SDKs' ackDSUpdate / ackDsUpdate): the rollover's process completes and the zone's rollover moves
 * to `retire` (its revision raised) in one transaction; the DNS sync then removes the old key
 * (shared/dns/key-rollover.ts has the whole flow). Answers the process, COMPLETED.
 *
 * Refused (400 ObjectStatusProhibitsOperation): another kind of process, a rollover no longer
 * running, a zone that is gone or no longer signed, and a new key not served yet (acknowledging a
 * DS the parent cannot have would retire the only key the parent trusts). Another customer's
 * process answers like a missing one.
 */

const maxAttempts = 5;

export async function acknowledgeDsUpdate(
  principal: Principal,
  processId: number,
  commitWith: CommitWith<ProcessView> = commitNothing,
): Promise<ProcessView> {
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    const process = await ownProcess(processId, principal.customer);
    if (process.type !== 'dnsZone' || process.action !== 'keyRollover') throw notOffered(process, 'acknowledge a DS update');
    if (process.status !== 'RUNNING') {
      throw new ObjectStatusProhibitsOperation(`The key rollover ${processId} is ${process.status}: its DS was acknowledged already.`);
    }
    const head = await getOwnZoneHead(principal.customer, process.identifier);
    const rollover = head?.zone.keyRollover;
    if (!head?.zone.dnssec || rollover?.processId !== processId || rollover.stage !== 'publish') {
      throw new ObjectStatusProhibitsOperation(`The zone ${process.identifier} of key rollover ${processId} is gone or no longer signed.`);
    }
    const state = await getZoneDnsState(process.identifier);
    const newKeys = (state?.dnskeys ?? []).filter((key) => !rollover.retire.includes(key));
    if (newKeys.length === 0) {
      throw new ObjectStatusProhibitsOperation(
        `The new key of the zone ${process.identifier} is not served yet, so the parent cannot have its DS; try again in a moment.`,
      );
    }
    const at = toWireTime(now());
    const after: ProcessRecord = {
      ...process,
      status: 'COMPLETED',
      updatedDate: at,
      details: { ...process.details, acknowledgedDate: at, keys: newKeys, ds: state?.ds ?? [] },
    };
    const view = processViewOf(after);
    const refused = await recordDsAcknowledged(head, { ...rollover, stage: 'retire' }, process, after, itemsOf(commitWith(view)));
    if (!refused) return view;
  }
  throw new ProviderUnavailable('The zone kept changing while the DS was acknowledged; retry.');
}
