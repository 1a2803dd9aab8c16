import type { Resolver } from 'node:dns/promises';
import type * as acme from 'acme-client';
import type { AcmeChallenge, AuthorityOrder, Validations } from '../../model/certificate-process.ts';
import { toWireTime } from '../../time.ts';
import type { Issued, RequestView } from '../authority.ts';
import { backoffSeconds } from './client.ts';
import type { ChallengeRecords } from './records.ts';

/**
 * What the steps of an ACME order share (the driver: acme-authority.ts): the shape of a step
 * (cert-manager's Evaluate/Run), what it is given and what it answers, and the rules of a new
 * order in place of a dead one.
 */

/** What a step answers: the order after it, the validations when they change, the certificate once issued, a note for the customer. */
export interface Taken {
  order: AuthorityOrder;
  validations?: Validations;
  issued?: Issued;
  note?: string;
}

/** What a step is given. */
export interface StepContext {
  request: RequestView;
  /** The order as recorded, its last failure cleared (a step that goes through clears it; one that fails records its own). */
  order: AuthorityOrder;
  now: Date;
  /** This pass's run of the DCV job (a claim of the step `order` by this run is its own). */
  run: string;
  /** Consecutive failures recorded before this step. */
  failures: number;
  client: acme.Client;
  records: ChallengeRecords;
  resolver: Pick<Resolver, 'resolveTxt'>;
}

/** One step of the order: whether it is due, decided from the recorded order alone, and the step itself. */
export interface AcmeStep {
  /** Evaluate: due now, from the recorded order and the clock (the driver has already held off for `notBefore`). */
  due(order: AuthorityOrder, now: Date): boolean;
  /** Run: takes the step and answers the outcome to record. */
  run(context: StepContext): Promise<Taken>;
}

/** A wire time `seconds` after `now`. */
export const later = (now: Date, seconds: number) => toWireTime(new Date(now.getTime() + seconds * 1000));

/** How many dead orders are replaced at once before a replacement waits a back-off. */
const freeReplacements = 2;

/** A new order in place of `order` (its directory, and its count of orders replaced), with `rest` recorded beside. */
export function anew(order: AuthorityOrder, rest: Partial<AuthorityOrder> = {}): AuthorityOrder {
  return { step: 'order', directory: order.directory, challenges: [], ...(order.replaced ? { replaced: order.replaced } : {}), ...rest };
}

/** An authorization that can no longer become valid without a challenge having failed: the order must be replaced. */
export function isDead(status: string): boolean {
  return status === 'expired' || status === 'deactivated';
}

/** The note of an order replaced because of an authorization. */
export function killedBy(authorization: acme.Authorization): string {
  return `The authorization of ${authorization.identifier.value} is ${authorization.status} at the certificate authority: a new order is placed.`;
}

/**
 * The authorization that killed an order no longer `pending`, `ready`, `processing` or `valid`,
 * when it expired or was deactivated (by the account's holder, elsewhere; or Pebble's order
 * status `deactivated`); undefined when a challenge failed instead (an `invalid` authorization).
 */
export async function deadAuthorization(client: acme.Client, current: acme.Order): Promise<acme.Authorization | undefined> {
  const authorizations = await client.getAuthorizations(current);
  if (authorizations.some((a) => a.status === 'invalid')) return undefined;
  return authorizations.find((a) => isDead(a.status));
}

/**
 * Replaces an order that expired, or one of whose authorizations expired or was deactivated at
 * the CA: no challenge failed, so nothing needs the customer's attention. Its records go, and a
 * new order for the same CSR is placed (recorded as one step: one new order per dead order);
 * `replaced` counts the orders replaced so, and the note says why. The first two are placed at
 * once; from the third, after the back-off of a failure (doubling from ACME_RETRY_SECONDS, at most
 * 15 minutes), so that orders a CA keeps killing cost it a few orders an hour, not one a pass.
 */
export async function replace(
  { request, order, now, records }: StepContext,
  note: string,
  validations: Validations = request.validations,
  dead: AuthorityOrder = order,
): Promise<Taken> {
  await records.remove(dead);
  const replaced = (dead.replaced ?? 0) + 1;
  const wait = replaced > freeReplacements ? backoffSeconds(replaced - freeReplacements) : undefined;
  return {
    order: anew(dead, { replaced, ...(wait !== undefined ? { notBefore: later(now, wait) } : {}) }),
    validations,
    note: wait !== undefined ? `${note.slice(0, -1)} in ${wait} s (order ${replaced} replaced).` : note,
  };
}

/** The DCV entries with the challenges' TXT values and statuses. */
export function withChallenges(validations: Validations, challenges: readonly AcmeChallenge[]): Validations {
  return {
    ...validations,
    dcv: validations.dcv.map((entry) => {
      const challenge = challenges.find((c) => c.name === entry.commonName.toLowerCase());
      if (!challenge) return entry;
      const status = challenge.status === 'valid' ? 'VALIDATED' : challenge.status === 'invalid' ? 'ATTENTION' : 'WAITING';
      return { ...entry, dnsRecord: challenge.record, dnsType: 'TXT' as const, dnsContents: challenge.value, status };
    }),
  };
}

/**
 * The problems with which a CA refuses to issue what was asked (RFC 8555 6.7): the same request
 * would be refused again, so the order ends instead of being retried.
 */
const refusals = new Set([
  'badCSR',
  'rejectedIdentifier',
  'unauthorized',
  'caa',
  'unsupportedIdentifier',
  'badPublicKey',
  'badSignatureAlgorithm',
  'badRevocationReason',
]);

/** Whether a problem type is a refusal to issue. */
export function isRefusal(type: string | undefined): boolean {
  return type !== undefined && refusals.has(type);
}

/**
 * The order ends: the CA refused to issue (at finalization). Its records go; every DCV entry asks
 * for the customer's attention, the note and the notification say what the CA answered, and no
 * step is due any more (the customer cancels and renews with a corrected request).
 */
export async function refuse({ request, order, records }: StepContext, problem: string): Promise<Taken> {
  await records.remove(order);
  const detail = problem.replace(/\s+/g, ' ').trim().slice(0, 300);
  return {
    order: { ...order, step: 'refused', problem: detail },
    validations: { ...request.validations, dcv: request.validations.dcv.map((e) => ({ ...e, status: 'ATTENTION' as const })) },
    note: `The certificate authority refused to issue the certificate: ${detail} Cancel the request and renew with a corrected request.`,
  };
}

/** An order's `error` (a problem document) in one line: its type and detail. */
export function errorDetail(error: unknown): string {
  const e = error as { type?: unknown; detail?: unknown };
  const type = typeof e.type === 'string' ? e.type.replace('urn:ietf:params:acme:error:', '') : undefined;
  const detail = typeof e.detail === 'string' ? e.detail : JSON.stringify(error).slice(0, 200);
  return type ? `${type}: ${detail}` : detail;
}
