import { randomInt } from 'node:crypto';
import { readForRenewal } from '../db/repositories/certificate-requests.ts';
import { getCertificateOf } from '../db/repositories/certificates.ts';
import { getProductPrices } from '../db/repositories/prices.ts';
import { ObjectDoesNotExist, ObjectStatusProhibitsOperation } from '../errors.ts';
import type { CertificateAuthority, CertificateProduct, CertificateRecord } from '../model/certificate.ts';
import type { CertificateProcessState, Validations } from '../model/certificate-process.ts';
import type { ZoneRecord } from '../model/zone.ts';
import type { PriceList, QuoteBody } from '../pricing/index.ts';
import { toWireTime } from '../time.ts';
import { certificateAuthority, chosenAuthority } from './authorities.ts';
import type { Opened } from './authority.ts';
import { catalogueAuthority, catalogueProduct } from './catalogue.ts';
import { CsrRejected, type ParsedCsr, parseCsr } from './csr.ts';
import type { RenewBody } from './renew-request.ts';
import { priceRenewal } from './renewal-price.ts';
import { type CheckedRenewal, checkRenewal, languageOf } from './renewal-rules.ts';
import { loadManagedZones, zoneCandidates } from './zones.ts';

/**
 * Planning a certificate renewal (spec 2.7, 4.2): the certificate must be the caller's and in its
 * renewal window, the request must keep its product's rules (renewal-rules.ts); the plan is the
 * process's state as the authority opens it, the DCV records' zones, and the price.
 */

const day = 24 * 60 * 60 * 1000;

/** Everything a valid request resolves to: what the quote shows and the process stores. */
export interface RenewalPlan {
  certificate: CertificateRecord;
  product: CertificateProduct;
  authority: CertificateAuthority;
  state: CertificateProcessState;
  zones: Map<string, ZoneRecord | undefined>;
  quote: QuoteBody;
  list: PriceList;
  /** The id sequences as read with the certificate (ids are claimed in the transaction). */
  counters: { process: number; certificate: number };
  /** The request validated and issued at once by its authority (auth key), when it is. */
  atOnce?: Opened['atOnce'];
}

/** What is read of the certificate and the catalogue before anything else: the certificate (absent when not the caller's) and the products and authority it names. */
export interface CertificateFacts {
  certificate: CertificateRecord | undefined;
  /** The certificate's own product. */
  current: CertificateProduct | undefined;
  /** The product the request names, when it names another. */
  requested: CertificateProduct | undefined;
  /** The authority of the product the renewal moves to. */
  authority: CertificateAuthority | undefined;
}

/** The certificate, product and authority a renewal goes ahead with. */
export interface Renewable {
  certificate: CertificateRecord;
  product: CertificateProduct;
  authority: CertificateAuthority;
}

/**
 * Validates the request and resolves everything the quote and the process need. Ownership comes
 * before cost, so the reads come in two rounds, each followed by a pure decision over what was
 * read: the certificate alone (another customer's reads like a missing one, in the same work) and
 * the catalogue entries it names, decided by `renewableNow`; then, only for a certificate of the
 * caller's that can be renewed now, the CSR parsed and checked, the names' zones (a bounded set:
 * zones.ts), the price list and the id counters read, the authority asked to open the request
 * (planning only: no call to it), and the plan decided by `decideRenewal`.
 */
export async function planRenewal(certificateId: number, body: RenewBody, customer: string, at: Date): Promise<RenewalPlan> {
  const renewable = renewableNow(await readCertificateFacts(customer, certificateId, body.product), certificateId, body.product, at);
  const checked = checkRenewal(renewable.product, body, await parseCsr(body.csr).catch(refusal));
  // One BatchGet (id counters, zone headers) and the product's prices (one Query of its entries,
  // not the customer's whole list), at once; then one Query of the records of each managed zone
  // found. Products and authorities are configuration, cached (shared/certificates/catalogue.ts).
  const [read, list] = await Promise.all([
    readForRenewal(zoneCandidates(checked.allNames)),
    getProductPrices(customer, renewable.product.product),
  ]);
  const zones = await loadManagedZones(customer, checked.allNames, read.zones);
  const uniqueValue = body.uniqueValue ?? randomUniqueValue();
  const opened = await certificateAuthority(renewable.authority).open(
    {
      processId: 0,
      validationLevel: renewable.product.validationType,
      period: body.period,
      csrSha256: checked.csr.summary.sha256,
      uniqueValue,
      names: [checked.commonName, ...checked.allNames.filter((name) => name !== checked.commonName)],
      ...(checked.subject.organization ? { organization: checked.subject.organization } : {}),
      requestedAt: at,
      csr: body.csr,
      authKey: body.authKey === true && renewable.product.authKey,
      csrNames: csrNames(checked.csr),
    },
    checked.dcv,
    zones,
  );
  return decideRenewal({ renewable, body, checked, uniqueValue, opened, zones, list, counters: read.counters, at });
}

/** Reads the certificate, and the catalogue entries it and the request name (none for a certificate that is not the caller's). */
async function readCertificateFacts(customer: string, certificateId: number, productName: string | undefined): Promise<CertificateFacts> {
  const certificate = await getCertificateOf(customer, certificateId);
  if (!certificate) return { certificate, current: undefined, requested: undefined, authority: undefined };
  const current = await catalogueProduct(certificate.product);
  const requested = productName === undefined || productName === current?.product ? undefined : await catalogueProduct(productName);
  const chosen = productName === undefined || productName === current?.product ? current : requested;
  const authority = chosen ? await catalogueAuthority(chosen.authority) : undefined;
  return { certificate, current, requested, authority };
}

/**
 * The certificate if it can be renewed now: the caller's (another's reads as absent), active, not
 * expired, not renewed or renewing, and in its product's renewal window; with the product the
 * renewal moves to (the one the request names, else the certificate's own) and its authority.
 */
export function renewableNow(facts: CertificateFacts, id: number, productName: string | undefined, at: Date): Renewable {
  const { certificate, current } = facts;
  if (!certificate) throw new ObjectDoesNotExist('Certificate', String(id));
  if (certificate.status !== 'ACTIVE') {
    throw new ObjectStatusProhibitsOperation(
      `Certificate ${id} is ${certificate.status.toLowerCase()}; only active certificates can be renewed.`,
    );
  }
  const expiry = new Date(certificate.expiryDate);
  if (expiry.getTime() <= at.getTime())
    throw new ObjectStatusProhibitsOperation(`Certificate ${id} expired on ${certificate.expiryDate}; request a new certificate instead.`);
  if (certificate.renewedBy !== undefined) {
    throw new ObjectStatusProhibitsOperation(`Certificate ${id} was already renewed by certificate ${certificate.renewedBy}.`);
  }
  if (certificate.renewalProcessId !== undefined) {
    throw new ObjectStatusProhibitsOperation(
      `Certificate ${id} has an open renewal (process ${certificate.renewalProcessId}); one renewal at a time.`,
    );
  }
  if (!current) throw new Error(`Certificate ${id} names unknown product '${certificate.product}'`);
  const opens = new Date(expiry.getTime() - current.renewalWindowDays * day);
  if (at.getTime() < opens.getTime()) {
    throw new ObjectStatusProhibitsOperation(
      `Certificate ${id} expires on ${certificate.expiryDate}; it can be renewed from ${toWireTime(opens)} (${current.renewalWindowDays} days before expiry).`,
    );
  }
  const product = productName === undefined || productName === current.product ? current : facts.requested;
  if (!product) throw new ObjectDoesNotExist('Product', productName as string, 'body');
  if (!facts.authority) throw new Error(`Product ${product.product} names unknown authority '${product.authority}'`);
  return { certificate, product, authority: facts.authority };
}

/** What the plan is decided from: the renewable certificate, the checked request, what was read for it, and what the authority opened. */
export interface RenewalInputs {
  renewable: Renewable;
  body: RenewBody;
  checked: CheckedRenewal;
  uniqueValue: string;
  opened: Opened;
  zones: Map<string, ZoneRecord | undefined>;
  list: PriceList;
  counters: { process: number; certificate: number };
  at: Date;
}

/** The plan of a renewal, decided from what was read (pure): the process's state and the price. */
export function decideRenewal({ renewable, body, checked, uniqueValue, opened, zones, list, counters, at }: RenewalInputs): RenewalPlan {
  const { certificate, product, authority } = renewable;
  const state = processState(renewable, body, checked, { uniqueValue, validations: opened.validations });
  const quote = priceRenewal(product, checked.names, body.period, list, at);
  return { certificate, product, authority, state, zones, quote, list, counters, ...(opened.atOnce ? { atOnce: opened.atOnce } : {}) };
}

/** The names a CSR carries: its common name and DNS SANs, lower-case, once each. */
function csrNames(csr: ParsedCsr): string[] {
  const { commonName, san } = csr.summary;
  return [...new Set([...(commonName ? [commonName] : []), ...san].map((n) => n.toLowerCase()))];
}

/** A refused CSR is an answer (reported with the request's other violations); anything else is thrown on. */
function refusal(error: unknown): CsrRejected {
  if (error instanceof CsrRejected) return error;
  throw error;
}

/** A random unique value (spec 2.7: generated when omitted): 20 lower-case letters and digits. */
function randomUniqueValue(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  let out = '';
  for (let i = 0; i < 20; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/** The state the renewal's process keeps: the request as checked, and the validations the authority opened. */
function processState(
  renewal: { certificate: CertificateRecord; product: CertificateProduct; authority: CertificateAuthority },
  body: RenewBody,
  checked: CheckedRenewal,
  opened: { uniqueValue: string; validations: Validations },
): CertificateProcessState {
  const { certificate, product, authority } = renewal;
  const csr: ParsedCsr = checked.csr;
  const months = Math.min(body.period, authority.maxValidityMonths);
  return {
    certificateId: certificate.id,
    product: product.product,
    authority: authority.name,
    openedBy: chosenAuthority,
    validationLevel: product.validationType,
    period: body.period,
    ...(body.period > months
      ? { subscription: { months: body.period, certificateMonths: months, reissues: Math.ceil(body.period / months) - 1 } }
      : {}),
    commonName: checked.commonName,
    san: checked.allNames.filter((n) => n !== checked.commonName),
    csr: body.csr,
    csrSummary: csr.summary,
    mismatches: checked.mismatches,
    uniqueValue: opened.uniqueValue,
    language: languageOf(body, csr),
    authKey: body.authKey === true,
    subject: checked.subject,
    ...(body.approver ? { approver: body.approver } : {}),
    ...(body.saEmail ? { saEmail: body.saEmail } : {}),
    validations: opened.validations,
    notes: [],
  };
}
