import { describe, expect, it } from 'vitest';
import type { ProcessRecord } from '../shared/model/process.ts';
import {
  finalStatuses,
  isFinal,
  type TransferDetails,
  type TransferPlan,
  transferStatuses,
  waitingStatuses,
  type ZoneEffect,
} from '../shared/model/transfer.ts';
import { moveOf } from '../shared/transfer/lifecycle.ts';

/** What a registry answer changes in a transfer (shared/transfer/lifecycle.ts), without a table. */

const plan: TransferPlan = {
  periodMonths: 12,
  expiry: { before: '2027-06-15T12:00:00Z', after: '2028-06-15T12:00:00Z' },
  nameServers: { change: 'replaced', before: ['ns1.old.example'], after: ['ns1.new.example'] },
  dnssec: { change: 'kept', before: [], after: [] },
  zone: { change: 'created', exists: false, service: 'BASIC', dnssec: false },
  contacts: { registrant: 'demo-registrant', contacts: [{ role: 'ADMIN', handle: 'demo-admin' }] },
  privacyProtect: true,
  autoRenew: false,
  designatedAgent: { requested: 'NONE', applied: 'NONE' },
};

const requestedDate = '2026-11-20T10:00:00Z';

/** A transfer process as recorded at `status`, version 3. */
function recorded(status: TransferDetails['status'], actionDate = '2026-11-25T10:00:00Z'): ProcessRecord {
  const details: TransferDetails = {
    domainName: 'moves.com',
    registry: 'verisign',
    extension: 'com',
    type: 'IN',
    status,
    version: 3,
    requestedDate,
    actionDate,
    plan,
    history: [{ status, date: requestedDate }],
  };
  return {
    id: 1234,
    customer: 'demo',
    user: 'demo-user',
    type: 'domain',
    action: 'transfer',
    identifier: 'moves.com',
    status: 'RUNNING',
    createdDate: requestedDate,
    updatedDate: requestedDate,
    billables: [{ product: 'domain_com', action: 'TRANSFER', quantity: 1, amount: 899, refundable: true, total: 899 }],
    details,
  };
}

const at = new Date('2026-11-26T08:00:00Z');
const now = '2026-11-26T08:00:00Z';

describe('transfer vocabulary', () => {
  it('lists every status once: the waiting ones, then the final ones', () => {
    expect(transferStatuses).toEqual([...waitingStatuses, ...finalStatuses]);
    expect(new Set(transferStatuses).size).toBe(transferStatuses.length);
    expect(transferStatuses.filter(isFinal)).toEqual(['cancelled', 'rejected', 'failed', 'completed']);
  });
});

describe('moveOf', () => {
  it('changes nothing when the registry repeats the status and actionDate', () => {
    expect(moveOf(recorded('pending'), { status: 'pending', actionDate: '2026-11-25T10:00:00Z' }, at, undefined)).toBeUndefined();
  });

  it('refuses a move the state machine does not allow', () => {
    expect(() => moveOf(recorded('pending'), { status: 'pendingfoa', actionDate: now }, at, undefined)).toThrow(
      'The registry reported an impossible transfer move pending -> pendingfoa for moves.com',
    );
  });

  it('moves a waiting transfer on: the next version, its history, and the pending state due at the new actionDate', () => {
    const move = moveOf(recorded('pendingfoa'), { status: 'approved', actionDate: '2026-11-27T08:00:00Z' }, at, undefined);
    expect(move?.lock).toEqual({
      domainName: 'moves.com',
      customer: 'demo',
      processId: 1234,
      status: 'approved',
      version: 4,
      requestedDate,
      actionDate: '2026-11-27T08:00:00Z',
    });
    expect(move?.process).toMatchObject({ status: 'RUNNING', updatedDate: now });
    expect(move?.process.details).toMatchObject({
      status: 'approved',
      version: 4,
      actionDate: '2026-11-27T08:00:00Z',
      history: [
        { status: 'pendingfoa', date: requestedDate },
        { status: 'approved', date: now },
      ],
    });
    expect(move?.domain).toBeUndefined();
  });

  it('records a first answer as version 1 with that status as the first of its history', () => {
    const first = recorded('pending');
    first.details = { ...first.details, version: 1, history: [] };
    const move = moveOf(first, { status: 'pending', actionDate: '2026-11-30T10:00:00Z' }, at, undefined, true);
    expect(move?.lock).toMatchObject({ status: 'pending', version: 1, actionDate: '2026-11-30T10:00:00Z' });
    expect(move?.process.details).toMatchObject({ version: 1, history: [{ status: 'pending', date: now }] });
  });

  it('ends a rejected transfer with the reason and its refundable billables refunded, and releases no domain', () => {
    const move = moveOf(recorded('pending'), { status: 'rejected', endDate: now, reason: 'The losing registrar said no.' }, at, undefined);
    expect(move).toEqual({ process: expect.objectContaining({ status: 'FAILED', updatedDate: now }) });
    expect(move?.process.details).toMatchObject({
      status: 'rejected',
      version: 4,
      actionDate: undefined,
      endDate: now,
      reason: 'The losing registrar said no.',
      refunded: true,
    });
  });

  it('completes a transfer: the domain with the plan applied to what the registry holds, and the zone given', () => {
    const zone: ZoneEffect = {
      create: true,
      record: {
        id: 77,
        domainName: 'moves.com',
        customer: 'demo',
        managed: true,
        service: 'BASIC',
        dnssec: false,
        hostMaster: 'hostmaster@moves.com',
        refresh: 10800,
        retry: 3600,
        expire: 1209600,
        ttl: 3600,
        records: [],
        createdDate: now,
      },
    };
    const held = { expiryDate: '2028-06-15T12:00:00Z', ns: ['ns1.registry.example'], keyData: [] };
    const move = moveOf(recorded('approved'), { status: 'completed', endDate: now, domain: held }, at, zone);
    expect(move?.lock).toBeUndefined();
    expect(move?.zone).toBe(zone);
    expect(move?.domain).toEqual({
      domainName: 'moves.com',
      customer: 'demo',
      registry: 'verisign',
      registrant: 'demo-registrant',
      contacts: [{ role: 'ADMIN', handle: 'demo-admin' }],
      ns: ['ns1.new.example'],
      keyData: [],
      privacyProtect: true,
      autoRenew: false,
      autoRenewPeriod: 12,
      premium: false,
      status: ['OK'],
      createdDate: now,
      updatedDate: now,
      expiryDate: '2028-06-15T12:00:00Z',
    });
    expect(move?.process).toMatchObject({ status: 'COMPLETED', updatedDate: now });
    expect(move?.process.details).toMatchObject({ status: 'completed', endDate: now, expiryDate: '2028-06-15T12:00:00Z', zoneId: 77 });
  });
});
