import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { parseDataset } from '../infra/dataset.ts';
import { RegistryDomainRecord } from '../shared/model/registry-domain.ts';
import { canMove, isValidPath, processStatusOf, transferStatuses, transitions } from '../shared/model/transfer.ts';
import { scriptedState } from '../shared/registry/sandbox.ts';
import { addMonths } from '../shared/time.ts';

const record = (transfer: unknown) =>
  v.safeParse(RegistryDomainRecord, {
    domainName: 'script.com',
    registry: 'verisign',
    statuses: ['ok'],
    expiryDate: '2027-01-31T10:00:00Z',
    ns: [],
    keyData: [],
    transfer,
  });

describe('transfer state machine', () => {
  it('has a row for every status of spec section 3, and final statuses never move', () => {
    expect(Object.keys(transitions).sort()).toEqual([...transferStatuses].sort());
    for (const final of ['completed', 'rejected', 'failed', 'cancelled'] as const) {
      expect(transitions[final]).toEqual([]);
      for (const to of transferStatuses) expect(canMove(final, to)).toBe(false);
    }
  });

  it('lets a waiting transfer wait, move forward or end, but never go back to an earlier registrant step', () => {
    expect(canMove('pending', 'pending')).toBe(true);
    expect(canMove('pendingfoa', 'approved')).toBe(true);
    expect(canMove('pending', 'completed')).toBe(true);
    expect(canMove('pending', 'pendingfoa')).toBe(false);
    expect(canMove('approved', 'rejected')).toBe(false);
    expect(isValidPath(['pendingwhois', 'pendingvalidation', 'pending', 'completed'])).toBe(true);
    expect(isValidPath(['pending', 'pendingwhois'])).toBe(false);
  });

  it('maps transfer statuses to process statuses (contract section 5)', () => {
    expect(transferStatuses.map((s) => [s, processStatusOf(s)])).toEqual([
      ['pendingwhois', 'RUNNING'],
      ['pendingfoa', 'RUNNING'],
      ['pendingvalidation', 'RUNNING'],
      ['pending', 'RUNNING'],
      ['approved', 'RUNNING'],
      ['cancelled', 'CANCELLED'],
      ['rejected', 'FAILED'],
      ['failed', 'FAILED'],
      ['completed', 'COMPLETED'],
    ]);
  });
});

describe('sandbox registry scripts', () => {
  it('refuses scripts that break the state machine or fail without waiting', () => {
    expect(
      record({
        stages: [
          { status: 'pending', seconds: 10 },
          { status: 'pendingfoa', seconds: 10 },
        ],
        outcome: 'completed',
      }).success,
    ).toBe(false);
    expect(record({ stages: [], outcome: 'rejected' }).success).toBe(false);
    expect(record({ stages: [{ status: 'approved', seconds: 10 }], outcome: 'rejected' }).success).toBe(false);
    expect(record({ stages: [{ status: 'pending', seconds: 10 }], outcome: 'rejected' }).success).toBe(true);
    expect(() => parseDataset({ registryDomains: [{ domainName: 'x.com' }] })).toThrow(/Invalid dataset: registryDomains\.0\.registry/);
  });

  it('answers the stage whose window holds the time, then the outcome with the new expiry', () => {
    const parsed = record({
      stages: [
        { status: 'pendingfoa', seconds: 60 },
        { status: 'pending', seconds: 120 },
      ],
      outcome: 'completed',
    });
    if (!parsed.success) throw new Error('fixture');
    const ref = { domainName: 'script.com', registry: 'verisign', requestedDate: '2026-11-21T10:00:00Z', periodMonths: 13 };
    expect(scriptedState(parsed.output, ref, new Date('2026-11-21T10:00:59Z'))).toEqual({
      status: 'pendingfoa',
      actionDate: '2026-11-21T10:01:00Z',
    });
    expect(scriptedState(parsed.output, ref, new Date('2026-11-21T10:01:00Z'))).toEqual({
      status: 'pending',
      actionDate: '2026-11-21T10:03:00Z',
    });
    expect(scriptedState(parsed.output, ref, new Date('2026-11-22T00:00:00Z'))).toEqual({
      status: 'completed',
      endDate: '2026-11-21T10:03:00Z',
      domain: { expiryDate: '2028-02-29T10:00:00Z', ns: [], keyData: [] },
    });
  });
});

describe('addMonths', () => {
  it('keeps the day of month and clamps it to the month end', () => {
    expect(addMonths(new Date('2027-01-31T10:00:00Z'), 1).toISOString()).toBe('2027-02-28T10:00:00.000Z');
    expect(addMonths(new Date('2028-01-31T10:00:00Z'), 1).toISOString()).toBe('2028-02-29T10:00:00.000Z');
    expect(addMonths(new Date('2027-04-02T08:30:00Z'), 12).toISOString()).toBe('2028-04-02T08:30:00.000Z');
    expect(addMonths(new Date('2026-11-30T00:00:00Z'), 3).toISOString()).toBe('2027-02-28T00:00:00.000Z');
  });
});
