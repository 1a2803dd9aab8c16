import { toWireTime } from '../time.ts';
import type { DomainRecord } from './domain.ts';

/**
 * A domain's life after registration (docs/domains.md, "Life cycle"): the pure rules the expiry job
 * and the renew, delete and restore use cases share. No I/O here.
 *
 * ```
 * OK --(notices 30 and 7 days before)--> expiry --autoRenew--> OK (renewed, charged RENEW)
 *                                          \--no autoRenew or refused--> EXPIRED (renewable)
 * EXPIRED --(auto-renew grace over)--> REDEMPTION_PERIOD (restorable, RESTORE)
 * DELETE  --------------------------> REDEMPTION_PERIOD
 * REDEMPTION_PERIOD --(redemption over)--> gone: the name is free
 * ```
 */

const day = 86_400_000;

/** Registries cap a domain's registration at ten years ahead (ICANN; the sandbox follows it). */
export const maxTermYears = 10;

/** The expiry notices a customer gets unless it set its own (`expiryNoticeDays`): days before expiry. */
export const defaultNoticeDays: readonly number[] = [30, 7];
/** The earliest notice a customer may ask for, in days before expiry (the job first looks at a domain then). */
export const maxNoticeDays = 90;

/** Days a registry keeps an expired domain renewable before deleting it, and keeps a deleted one restorable (when its metadata is silent). */
export const defaultGraceDays = 30;
export const defaultRedemptionDays = 30;

/** The statuses that forbid a renewal, a deletion (the registrar or the registry lock). */
export const renewBlocking = ['CLIENT_RENEW_PROHIBITED', 'SERVER_RENEW_PROHIBITED', 'REGISTRAR_RENEW_PROHIBITED'] as const;
export const deleteBlocking = ['CLIENT_DELETE_PROHIBITED', 'SERVER_DELETE_PROHIBITED', 'REGISTRAR_DELETE_PROHIBITED'] as const;

export const inRedemption = (d: Pick<DomainRecord, 'status'>) => d.status.includes('REDEMPTION_PERIOD');
export const isExpired = (d: Pick<DomainRecord, 'status'>) => d.status.includes('EXPIRED');

const iso = (ms: number) => toWireTime(ms);

/**
 * When the expiry job next looks at a domain: the time the job set (`lifecycleDue`), else the end of
 * its redemption period, else its expiry less the earliest notice any customer may want.
 */
export function dueOf(d: Pick<DomainRecord, 'status' | 'expiryDate' | 'redemptionUntil' | 'lifecycleDue'>): string {
  if (d.lifecycleDue !== undefined) return d.lifecycleDue;
  if (inRedemption(d)) return d.redemptionUntil ?? d.expiryDate;
  if (isExpired(d)) return d.expiryDate;
  return iso(Date.parse(d.expiryDate) - maxNoticeDays * day);
}

/** What the expiry job does with a domain that is due at `at`. */
export type LifecycleStep =
  | { step: 'notice'; days: number; sent: number[] }
  | { step: 'renew' }
  | { step: 'expire' }
  | { step: 'redeem' }
  | { step: 'purge' }
  | { step: 'wait'; until: string };

/**
 * The job's decision for one domain at `at` (pure): purge after redemption; into redemption when
 * the grace after expiry is over; at expiry renew (autoRenew) or expire; before expiry, the nearest
 * notice not yet sent whose day has come (earlier ones missed are counted as sent); else wait.
 */
export function nextStep(d: DomainRecord, at: Date, rules: { noticeDays: readonly number[]; graceDays: number }): LifecycleStep {
  const now = at.getTime();
  const expiry = Date.parse(d.expiryDate);
  if (inRedemption(d)) {
    const end = Date.parse(d.redemptionUntil ?? d.expiryDate);
    return now >= end ? { step: 'purge' } : { step: 'wait', until: iso(end) };
  }
  if (isExpired(d)) {
    const end = expiry + rules.graceDays * day;
    return now >= end ? { step: 'redeem' } : { step: 'wait', until: iso(end) };
  }
  if (now >= expiry) return d.autoRenew ? { step: 'renew' } : { step: 'expire' };
  const sent = d.expiryNotices?.expiryDate === d.expiryDate ? d.expiryNotices.days : [];
  const due = rules.noticeDays.filter((n) => !sent.includes(n) && now >= expiry - n * day).sort((a, b) => a - b);
  if (due.length > 0) {
    const days = due[0] as number;
    return { step: 'notice', days, sent: [...new Set([...sent, ...due])] };
  }
  const next = rules.noticeDays.filter((n) => !sent.includes(n)).map((n) => expiry - n * day);
  return { step: 'wait', until: iso(Math.min(expiry, ...next)) };
}

/** The time `days` days after a wire time. */
export function daysAfter(wire: string, days: number): string {
  return iso(Date.parse(wire) + days * day);
}
