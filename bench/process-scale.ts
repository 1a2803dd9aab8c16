import { hashApiKey } from '../shared/auth/api-keys.ts';
import { batchWriteAll } from '../shared/db/items.ts';
import { putApiKey } from '../shared/db/repositories/api-keys.ts';
import {
  countedOf,
  countInto,
  emptyShardCounts,
  processCountShards,
  writeProcessCounts,
} from '../shared/db/repositories/process-counts.ts';
import {
  markProcessPositions,
  processIdentifierItem,
  processItem,
  processTypeItems,
  rebuildProcessBlocks,
} from '../shared/db/repositories/processes.ts';
import type { ProcessRecord } from '../shared/model/process.ts';

/**
 * A customer with many processes, for the process list at scale (the benchmark and
 * test/round-trips.test.ts): `count` processes of customer `scale` (API key `scale-key`), ids from
 * 100001 up, written through the repositories' item builders with BatchWrite. Of every 500: 5
 * running transfers waiting for their FOA, 2 running certificate requests of which 1 needs
 * attention, and 493 completed transfers. Each name is used by exactly one process.
 */

export const scaleCustomer = 'scale';
export const scaleKey = 'scale-key';
const firstId = 100_001;

function transferDetails(id: number, status: 'pendingfoa' | 'completed'): Record<string, unknown> {
  const date = '2026-06-01T00:00:00Z';
  const plan = {
    periodMonths: 12,
    expiry: { before: '2027-06-01T00:00:00Z', after: '2028-06-01T00:00:00Z' },
    nameServers: { change: 'kept', before: [], after: [] },
    dnssec: { change: 'kept', before: [], after: [] },
    zone: { change: 'untouched', exists: false },
    contacts: { registrant: 'scale-registrant', contacts: [] },
    privacyProtect: false,
    autoRenew: true,
    designatedAgent: { requested: 'NONE', applied: 'NONE' },
  };
  return {
    domainName: `scale-${id}.com`,
    registry: 'verisign',
    extension: 'com',
    type: 'IN',
    status,
    version: status === 'completed' ? 2 : 1,
    requestedDate: date,
    ...(status === 'completed' ? { endDate: date, expiryDate: '2028-06-01T00:00:00Z' } : { actionDate: '2026-06-02T00:00:00Z' }),
    plan,
    history: [{ status, date }],
  };
}

function certificateDetails(id: number, attention: boolean): Record<string, unknown> {
  return {
    product: 'ssl_sectigo_dv',
    authority: 'sectigo',
    validationLevel: 'DV',
    period: 12,
    commonName: `www.scale-${id}.com`,
    san: [],
    csr: '-----BEGIN CERTIFICATE REQUEST-----\n-----END CERTIFICATE REQUEST-----\n',
    csrSummary: { san: [], subject: {}, keyType: 'EC', keySize: 256, signatureAlgorithm: 'ecdsa-with-SHA256', sha256: 'ab' },
    mismatches: [],
    uniqueValue: `scale${id}`,
    language: 'EN',
    authKey: false,
    subject: {},
    validations: {
      dcv: [{ commonName: `www.scale-${id}.com`, type: 'DNS', status: attention ? 'ATTENTION' : 'WAITING', caaRecordStatus: 'UNKNOWN' }],
    },
    notes: [],
  };
}

/** The `index`-th process of the scale customer (or of `customer`, whose ids start at `first`). */
export function scaleProcess(index: number, customer = scaleCustomer, first = firstId): ProcessRecord {
  const id = first + index;
  const slot = index % 500;
  const base = {
    id,
    customer,
    user: 'bench',
    createdDate: '2026-06-01T00:00:00Z',
    updatedDate: '2026-06-01T00:00:00Z',
    billables: [{ product: 'domain_com', action: 'TRANSFER', quantity: 1, amount: 899, refundable: true, total: 899 }],
    currency: 'EUR',
  };
  if (slot < 2) {
    return {
      ...base,
      type: 'certificate',
      action: 'renew',
      identifier: `www.scale-${id}.com`,
      status: 'RUNNING',
      details: certificateDetails(id, slot === 0),
    };
  }
  const waiting = slot < 7;
  return {
    ...base,
    type: 'domain',
    action: 'transfer',
    identifier: `scale-${id}.com`,
    status: waiting ? 'RUNNING' : 'COMPLETED',
    details: transferDetails(id, waiting ? 'pendingfoa' : 'completed'),
  };
}

/** The identifier of the `index`-th process (for an exact identifier filter). */
export const scaleIdentifier = (index: number) => scaleProcess(index).identifier;

/**
 * Writes `count` processes of the scale customer (or of `customer`, ids from `first`) and its
 * API key (`<customer>-key`). BatchWrite keeps no counts, so the loader writes the counts of what
 * it wrote (the customer has no processes before), as a repair would.
 */
export async function loadScaleProcesses(count: number, customer = scaleCustomer, first = firstId): Promise<void> {
  await putApiKey({
    keyHash: hashApiKey(customer === scaleCustomer ? scaleKey : `${customer}-key`),
    customer,
    user: 'bench',
    permissions: [],
    createdDate: '2026-06-01T00:00:00Z',
  });
  const processes = Array.from({ length: count }, (_, i) => scaleProcess(i, customer, first));
  await batchWriteAll(
    processes.flatMap((p) => [{ put: processItem(p) }, { put: processIdentifierItem(p) }, ...processTypeItems(p).map((put) => ({ put }))]),
  );
  const shards = emptyShardCounts();
  countInto(shards, processes.map(countedOf));
  const raced = await writeProcessCounts(customer, shards, Array<number>(processCountShards).fill(0));
  if (raced.length > 0) throw new Error(`The counts of ${customer} were written meanwhile (shards ${raced.join(', ')})`);
  // The listing's marks for deep offsets, as the scheduled count repair makes them.
  await markProcessPositions(customer);
  // And its status listings' blocks, as `migrate` and the count repair build them.
  await rebuildProcessBlocks(customer);
}
