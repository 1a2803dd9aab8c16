import { randomInt } from 'node:crypto';
import type { Principal } from '../../shared/auth/principal.ts';
import { authorityGateway, type DcvChoice, type RequestView } from '../../shared/certificates/authority.ts';
import { catalogueAuthority, catalogueProduct } from '../../shared/certificates/catalogue.ts';
import { CsrRejected, type ParsedCsr, parseCsr } from '../../shared/certificates/csr.ts';
import { approverEmails, approverMailboxes, wwwCounterpart } from '../../shared/certificates/dcv.ts';
import { certificateInfo } from '../../shared/certificates/info.ts';
import type { CertificateInfo } from '../../shared/certificates/view.ts';
import { managedZonesFor, pickManagedZones, zoneCandidates } from '../../shared/certificates/zones.ts';
import { parseItem, readItems } from '../../shared/db/items.ts';
import { keys } from '../../shared/db/keys.ts';
import { certificateItem, openRequestItem } from '../../shared/db/repositories/certificates.ts';
import { getPriceList } from '../../shared/db/repositories/prices.ts';
import { processItem } from '../../shared/db/repositories/processes.ts';
import { tableName } from '../../shared/db/table.ts';
import { counterKey, counterValue, type TransactItem, transactWithIds } from '../../shared/db/transactions.ts';
import { ObjectDoesNotExist, ObjectStatusProhibitsOperation, ValidationError, type Violation } from '../../shared/errors.ts';
import {
  type CertificateAuthority,
  type CertificateProcessState,
  type CertificateProduct,
  CertificateRecord,
  type Mismatch,
  type ProductField,
  productFields,
  type Validations,
} from '../../shared/model/certificate.ts';
import type { Outcome, ProcessRecord, StartedProcess } from '../../shared/model/process.ts';
import type { ZoneRecord, ZoneRecordEntry } from '../../shared/model/zone.ts';
import {
  assertAcknowledged,
  buildQuote,
  listPriceLine,
  type PriceList,
  type QuoteBody,
  type QuoteLine,
} from '../../shared/pricing/index.ts';
import { domainNamePattern } from '../../shared/schemas/primitives.ts';
import { now as clock, toWireTime } from '../../shared/time.ts';
import type { RenewBody } from './schema.ts';

/**
 * Certificate renewal (spec 2.7, 4.2; contract 3.2): validates the request against the product's
 * metadata and the CSR, prices it, and either answers a quote or opens a renewal process whose DCV
 * records go straight into the customer's managed zones. Auth-key requests that can be validated
 * at once are issued immediately.
 */

const day = 24 * 60 * 60 * 1000;
/** TTL of the DCV records the service adds to a managed zone. */
const dcvRecordTtl = 300;
/** The quote's `command` for this operation. */
export const renewCommand = 'CertificateRenew';

/** CSR subject fields that stand in for an omitted request field (spec 2.7: "overrides the ... of the CSR"). */
const csrFallback: Partial<Record<ProductField, (csr: ParsedCsr) => string | undefined>> = {
  domainName: (csr) => csr.summary.commonName,
  organization: (csr) => csr.summary.subject.organization,
  department: (csr) => csr.summary.subject.organizationalUnit,
  state: (csr) => csr.summary.subject.state,
  city: (csr) => csr.summary.subject.locality,
};

const languageOfCountry: Record<string, string> = { NL: 'NL', BE: 'NL', FR: 'FR', DE: 'DE', AT: 'DE', CH: 'DE', LU: 'FR' };

/** Everything a valid request resolves to: what the quote shows and the process stores. */
interface Plan {
  certificate: CertificateRecord;
  product: CertificateProduct;
  authority: CertificateAuthority;
  state: CertificateProcessState;
  zones: Map<string, ZoneRecord | undefined>;
  quote: QuoteBody;
  list: PriceList;
  /** The id sequences as read with the certificate (ids are claimed in the transaction). */
  counters: { process: number; certificate: number };
}

/** The quote of a renewal (contract 3.2): what the request would produce, with its price. */
export type RenewalQuote = CertificateInfo & QuoteBody;

/** Renews a certificate (spec 4.2), or with `quoteOnly` answers what the renewal would produce and cost, changing nothing. */
export async function renewCertificate(
  certificateId: number,
  body: RenewBody,
  principal: Principal,
  quoteOnly: boolean,
): Promise<Outcome<RenewalQuote, CertificateInfo>> {
  const at = clock();
  const plan = await planRenewal(certificateId, body, principal.customer, at);
  if (quoteOnly) return { quote: { ...certificateInfo({ id: 0, status: 'NEW' }, plan.state, plan.authority, at), ...plan.quote } };
  return { started: await submit(plan, body, principal, at) };
}

async function renewableCertificate(
  certificate: CertificateRecord | undefined,
  id: number,
  at: Date,
): Promise<{ certificate: CertificateRecord; current: CertificateProduct }> {
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
  const current = await catalogueProduct(certificate.product);
  if (!current) throw new Error(`Certificate ${id} names unknown product '${certificate.product}'`);
  const opens = new Date(expiry.getTime() - current.renewalWindowDays * day);
  if (at.getTime() < opens.getTime()) {
    throw new ObjectStatusProhibitsOperation(
      `Certificate ${id} expires on ${certificate.expiryDate}; it can be renewed from ${toWireTime(opens)} (${current.renewalWindowDays} days before expiry).`,
    );
  }
  return { certificate, current };
}

function isValidName(name: string): boolean {
  return domainNamePattern.test(name.startsWith('*.') ? name.slice(2) : name);
}

function fail(violations: Violation[]): void {
  if (violations.length > 0)
    throw new ValidationError(
      violations.length === 1 ? `${violations[0]?.field}: ${violations[0]?.message}` : "The request breaks the product's rules.",
      violations,
    );
}

/** A random unique value (spec 2.7: generated when omitted): 20 lower-case letters and digits. */
function randomUniqueValue(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  let out = '';
  for (let i = 0; i < 20; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/** Above this many names, zones are read after validation rather than with the certificate. */
const maxPrefetchedNames = 50;

/**
 * Every name the request can end up certifying (the common name, its www counterpart, the SANs
 * of the body and of the CSR), whose zones can thus be read with the certificate before the
 * product's rules pick the names; undefined for an unusually long list, read later instead.
 */
function zonePrefetch(body: RenewBody, csr: ParsedCsr | undefined): string[] | undefined {
  const commonNames = [body.domainName, csr?.summary.commonName].filter((n): n is string => n !== undefined);
  const names = new Set([
    ...commonNames,
    ...commonNames.map(wwwCounterpart).filter((n): n is string => n !== undefined),
    ...(body.san ?? []),
    ...(csr?.summary.san ?? []),
  ]);
  const valid = [...names].filter((n) => n.length <= 253 && isValidName(n));
  if (valid.length > maxPrefetchedNames) return undefined;
  return zoneCandidates(valid);
}

const parseCertificate = (item: Record<string, unknown>): CertificateRecord => parseItem(CertificateRecord, 'certificate', item);

/** Validates the request and resolves everything the quote and the process need. */
export async function planRenewal(certificateId: number, body: RenewBody, customer: string, at: Date): Promise<Plan> {
  // The CSR is parsed first (no I/O): its names say which zones to read along with the
  // certificate. A CSR error is still reported where the rules below put it.
  let parsed: ParsedCsr | undefined;
  let rejected: CsrRejected | undefined;
  try {
    parsed = await parseCsr(body.csr);
  } catch (error) {
    if (!(error instanceof CsrRejected)) throw error;
    rejected = error;
  }
  const zoneNames = zonePrefetch(body, parsed);
  const named: Record<string, { pk: string; sk: string }> = {
    certificate: keys.certificateById(certificateId),
    processCounter: counterKey('process'),
    certificateCounter: counterKey('certificate'),
  };
  zoneNames?.forEach((name, i) => {
    named[`zone${i}`] = keys.zoneByName(name);
  });
  // One BatchGet (certificate, counters, zones) and the price list's Query, at once; products
  // and authorities are configuration, cached (shared/certificates/catalogue.ts).
  const [items, list] = await Promise.all([readItems(named), getPriceList(customer)]);
  const stored = items.certificate ? parseCertificate(items.certificate) : undefined;
  const { certificate, current } = await renewableCertificate(stored?.customer === customer ? stored : undefined, certificateId, at);
  let product = current;
  if (body.product !== undefined && body.product !== current.product) {
    const chosen = await catalogueProduct(body.product);
    if (!chosen) throw new ObjectDoesNotExist('Product', body.product, 'body');
    product = chosen;
  }
  const authority = await catalogueAuthority(product.authority);
  if (!authority) throw new Error(`Product ${product.product} names unknown authority '${product.authority}'`);

  const violations: Violation[] = [];
  if (!product.periods.includes(body.period)) {
    violations.push({
      field: 'period',
      message: `must be one of ${product.periods.join(', ')} months for product ${product.product}`,
      value: body.period,
    });
  }
  const used = new Set<ProductField>([...product.requiredFields, ...product.optionalFields]);
  for (const field of productFields) {
    if (body[field] !== undefined && !used.has(field)) violations.push({ field, message: `is not used by product ${product.product}` });
  }
  if (body.authKey === true && !product.authKey)
    violations.push({ field: 'authKey', message: `product ${product.product} does not offer auth-key validation` });

  if (rejected) {
    fail([...violations, { field: 'csr', message: rejected.message }]);
    throw rejected;
  }
  const csr = parsed as ParsedCsr;
  for (const field of product.requiredFields) {
    if (body[field] === undefined && csrFallback[field]?.(csr) === undefined) {
      violations.push({ field, message: `is required for product ${product.product}` });
    }
  }

  // Names: the common name (domainName overrides the CSR's), then SANs per the product's type.
  const mismatches: Mismatch[] = [];
  const csrName = csr.summary.commonName;
  const commonName = body.domainName ?? csrName;
  if (commonName === undefined) {
    violations.push({ field: 'domainName', message: 'is required: the CSR has no common name' });
    fail(violations);
  }
  const cn = commonName as string;
  if (body.domainName === undefined && !isValidName(cn))
    violations.push({ field: 'csr', message: `has common name '${cn}', which is not a valid domain name` });
  if (body.domainName !== undefined && csrName !== undefined && csrName !== body.domainName) {
    mismatches.push({ field: 'domainName', message: `overrides the CSR's common name ${csrName}` });
  }
  let names: string[];
  let free: string | undefined;
  if (product.certificateType === 'SINGLE_DOMAIN') {
    if (body.san !== undefined && body.san.length > 0) {
      violations.push({ field: 'san', message: `is only for multi-domain products; ${product.product} is single-domain` });
    }
    names = [cn];
    free = body.san === undefined ? wwwCounterpart(cn) : undefined;
    const certified = new Set([cn, ...(free ? [free] : [])]);
    const dropped = csr.summary.san.filter((n) => !certified.has(n));
    if (dropped.length > 0)
      mismatches.push({ field: 'csr', message: `lists names this single-domain product will not certify: ${dropped.join(', ')}` });
  } else {
    const sans = body.san ?? csr.summary.san.filter(isValidName);
    names = [...new Set([cn, ...sans])];
    body.san?.forEach((n, i) => {
      if (n === cn) return;
      if (body.san?.indexOf(n) !== i) violations.push({ field: `san[${i}]`, message: 'is listed twice', value: n });
    });
    if (body.san !== undefined) {
      const fromCsr = new Set(csr.summary.san);
      const given = new Set(names);
      const extra = names.filter((n) => !fromCsr.has(n));
      const missing = csr.summary.san.filter((n) => !given.has(n));
      if (extra.length > 0 || missing.length > 0) {
        mismatches.push({
          field: 'san',
          message: `overrides the CSR's names: ${extra.length ? `adds ${extra.join(', ')}` : ''}${extra.length && missing.length ? '; ' : ''}${missing.length ? `leaves out ${missing.join(', ')}` : ''}`,
        });
      }
    }
    if (csr.summary.san.length > product.maxDomains) {
      mismatches.push({
        field: 'csr',
        message: `lists ${csr.summary.san.length} names; product ${product.product} certifies at most ${product.maxDomains}`,
      });
    }
  }
  if (names.length > product.maxDomains) {
    violations.push({
      field: 'san',
      message: `holds ${names.length} names with the common name; product ${product.product} allows at most ${product.maxDomains}`,
    });
  }
  if (!product.wildcard) {
    if (cn.startsWith('*.'))
      violations.push({
        field: body.domainName ? 'domainName' : 'csr',
        message: `is a wildcard; product ${product.product} does not support wildcards`,
      });
    body.san?.forEach((n, i) => {
      if (n.startsWith('*.') && n !== cn)
        violations.push({ field: `san[${i}]`, message: `is a wildcard; product ${product.product} does not support wildcards`, value: n });
    });
  }
  const allNames = free ? [...names, free] : names;

  // DCV: one entry per name; names without one are validated by DNS.
  const chosen = new Map<string, DcvChoice>();
  body.dcv?.forEach((entry, i) => {
    const at_ = `dcv[${i}]`;
    if (!allNames.includes(entry.commonName)) {
      violations.push({
        field: `${at_}.commonName`,
        message: `is not a name of this request (${allNames.join(', ')})`,
        value: entry.commonName,
      });
      return;
    }
    if (chosen.has(entry.commonName))
      violations.push({ field: `${at_}.commonName`, message: 'has a DCV entry already', value: entry.commonName });
    if (entry.type === 'EMAIL') {
      if (entry.email === undefined) violations.push({ field: `${at_}.email`, message: 'is required for EMAIL validation' });
      else if (!approverEmails(entry.commonName).includes(entry.email)) {
        violations.push({
          field: `${at_}.email`,
          message: `must be ${approverMailboxes.join('@, ')}@ at ${entry.commonName.replace(/^\*\./, '')} or a parent domain`,
          value: entry.email,
        });
      }
    } else if (entry.email !== undefined) {
      violations.push({ field: `${at_}.email`, message: 'is only for EMAIL validation' });
    }
    if (entry.type === 'FILE' && entry.commonName.startsWith('*.')) {
      violations.push({ field: `${at_}.type`, message: 'FILE validation is not possible for a wildcard name' });
    }
    chosen.set(entry.commonName, { commonName: entry.commonName, type: entry.type, ...(entry.email ? { email: entry.email } : {}) });
  });
  fail(violations);

  const subject: Record<string, string> = {};
  if (product.validationType !== 'DV') {
    for (const field of ['organization', 'department', 'state', 'address', 'postalCode', 'city', 'coc'] as const) {
      const value = body[field] ?? csrFallback[field]?.(csr);
      if (value !== undefined && used.has(field)) subject[field] = value;
    }
    if (csr.summary.subject.country) subject.country = csr.summary.subject.country;
  }

  const zones =
    zoneNames !== undefined
      ? pickManagedZones(
          customer,
          allNames,
          zoneNames.map((_, i) => items[`zone${i}`]).filter((item) => item !== undefined),
        )
      : await managedZonesFor(customer, allNames);
  const uniqueValue = body.uniqueValue ?? randomUniqueValue();
  const view: Omit<RequestView, 'validations'> = {
    processId: 0,
    validationLevel: product.validationType,
    period: body.period,
    csrSha256: csr.summary.sha256,
    uniqueValue,
    requestedAt: at,
  };
  const gateway = authorityGateway(authority);
  const validations = gateway.open(
    view,
    allNames.map((n) => chosen.get(n) ?? { commonName: n, type: 'DNS' }),
    zones,
  );
  const months = Math.min(body.period, authority.maxValidityMonths);

  const state: CertificateProcessState = {
    certificateId: certificate.id,
    product: product.product,
    authority: authority.name,
    validationLevel: product.validationType,
    period: body.period,
    ...(body.period > months
      ? { subscription: { months: body.period, certificateMonths: months, reissues: Math.ceil(body.period / months) - 1 } }
      : {}),
    commonName: cn,
    san: allNames.filter((n) => n !== cn),
    csr: body.csr,
    csrSummary: csr.summary,
    mismatches,
    uniqueValue,
    language: body.language ?? languageOfCountry[csr.summary.subject.country?.toUpperCase() ?? ''] ?? 'EN',
    authKey: body.authKey === true,
    subject,
    ...(body.approver ? { approver: body.approver } : {}),
    ...(body.saEmail ? { saEmail: body.saEmail } : {}),
    validations,
    notes: [],
  };
  const quote = priceRenewal(product, names, body.period, list, at);
  const counters = { process: counterValue(items.processCounter), certificate: counterValue(items.certificateCounter) };
  return { certificate, product, authority, state, zones, quote, list, counters };
}

/** Contract section 4: RENEW per year, EXTRA_DOMAIN / EXTRA_WILDCARD per name beyond the included ones, per year. */
function priceRenewal(product: CertificateProduct, names: string[], period: number, list: PriceList, at: Date): QuoteBody {
  const years = Math.ceil(period / 12);
  const wildcards = names.filter((n) => n.startsWith('*.')).length;
  const plain = names.length - wildcards;
  const wanted: [Parameters<typeof listPriceLine>[2], number][] = [
    ['RENEW', years],
    ['EXTRA_DOMAIN', Math.max(0, plain - product.includedDomains) * years],
    ['EXTRA_WILDCARD', wildcards * years],
  ];
  const lines: QuoteLine[] = [];
  let currency: string | undefined;
  for (const [action, quantity] of wanted) {
    if (quantity === 0) continue;
    const priced = listPriceLine(list, product.product, action, quantity, at);
    if (!priced)
      throw new ValidationError(`Product ${product.product} has no ${action} price on your price list.`, [
        { field: 'product', message: `has no ${action} price for your account` },
      ]);
    if (currency !== undefined && priced.currency !== currency) throw new Error(`Mixed currencies on the price list of ${product.product}`);
    currency = priced.currency;
    lines.push(priced.line);
  }
  return buildQuote(renewCommand, currency ?? 'EUR', lines);
}

/** The DCV records to add, per managed zone (one update per zone item in the transaction). */
function recordsToAdd(validations: Validations, zones: Map<string, ZoneRecord | undefined>): Map<string, ZoneRecordEntry[]> {
  const out = new Map<string, ZoneRecordEntry[]>();
  for (const entry of validations.dcv) {
    if (entry.type !== 'DNS' || !entry.zone || !entry.dnsRecord || !entry.dnsType || !entry.dnsContents) continue;
    const zone = zones.get(entry.commonName);
    if (!zone) continue;
    const present = zone.records.some((r) => r.name === entry.dnsRecord && r.type === entry.dnsType && r.content === entry.dnsContents);
    const list = out.get(zone.domainName) ?? [];
    if (!present && !list.some((r) => r.name === entry.dnsRecord)) {
      list.push({ name: entry.dnsRecord, type: entry.dnsType, content: entry.dnsContents, ttl: dcvRecordTtl });
    }
    out.set(zone.domainName, list);
  }
  return out;
}

/** Opens the renewal process (or issues at once): one transaction guarding one renewal per certificate. */
async function submit(plan: Plan, body: RenewBody, principal: Principal, at: Date): Promise<StartedProcess<CertificateInfo>> {
  const { certificate, product, authority, zones, quote, list, counters } = plan;
  assertAcknowledged(quote, list, body.billables, at);
  const gateway = authorityGateway(authority);
  const immediate = plan.state.authKey && product.authKey && gateway.validatableAtOnce(plan.state.validations);
  const stamp = toWireTime(at);
  const validations: Validations = immediate
    ? {
        ...plan.state.validations,
        dcv: plan.state.validations.dcv.map((e) => ({
          ...e,
          status: 'VALIDATED' as const,
          ...(e.riskStatus ? { riskStatus: 'PASSED' as const } : {}),
        })),
      }
    : plan.state.validations;
  const table = tableName();
  const zoneUpdates = [...recordsToAdd(validations, zones)].filter(([, records]) => records.length > 0);

  /** The process (and the certificate issued at once) for the ids, and the transaction's items. */
  const build = (ids: { process: number; certificate?: number }) => {
    const processId = ids.process;
    const state: CertificateProcessState = { ...plan.state, validations };
    let issued: CertificateRecord | undefined;
    if (immediate) {
      const view: RequestView = {
        processId,
        validationLevel: state.validationLevel,
        period: state.period,
        csrSha256: state.csrSummary.sha256,
        uniqueValue: state.uniqueValue,
        requestedAt: at,
        validations,
      };
      const out = gateway.issue(view, at);
      issued = {
        id: ids.certificate as number,
        customer: principal.customer,
        product: product.product,
        commonName: state.commonName,
        san: [state.commonName, ...state.san],
        status: 'ACTIVE',
        serialNumber: out.serialNumber,
        startDate: out.startDate,
        expiryDate: out.expiryDate,
        ...(out.subscriptionEndDate ? { subscriptionEndDate: out.subscriptionEndDate } : {}),
        ...(state.subject.organization ? { organization: state.subject.organization } : {}),
        keyType: `${state.csrSummary.keyType}-${state.csrSummary.curve ?? state.csrSummary.keySize}`,
        processId,
        createdDate: stamp,
        updatedDate: stamp,
      };
      state.issuedCertificateId = issued.id;
      state.issuedImmediately = true;
    }
    const process: ProcessRecord = {
      id: processId,
      customer: principal.customer,
      user: principal.user,
      type: 'certificate',
      action: 'renew',
      identifier: state.commonName,
      status: immediate ? 'COMPLETED' : 'RUNNING',
      createdDate: stamp,
      updatedDate: stamp,
      billables: quote.quote.billables ?? [],
      details: state as unknown as Record<string, unknown>,
    };
    const items: TransactItem[] = [
      {
        Update: {
          TableName: table,
          Key: keys.certificateById(certificate.id),
          UpdateExpression: immediate ? 'SET renewedBy = :link, updatedDate = :now' : 'SET renewalProcessId = :link, updatedDate = :now',
          ConditionExpression:
            'customer = :customer AND #status = :active AND attribute_not_exists(renewalProcessId) AND attribute_not_exists(renewedBy)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':link': issued ? issued.id : processId,
            ':now': stamp,
            ':customer': principal.customer,
            ':active': 'ACTIVE',
          },
        },
      },
      { Put: { TableName: table, Item: processItem(process), ConditionExpression: 'attribute_not_exists(pk)' } },
      issued
        ? { Put: { TableName: table, Item: certificateItem(issued), ConditionExpression: 'attribute_not_exists(pk)' } }
        : { Put: { TableName: table, Item: openRequestItem(processId) } },
      ...zoneUpdates.map(([zoneName, records]) => ({
        Update: {
          TableName: table,
          Key: keys.zoneByName(zoneName),
          UpdateExpression: 'SET #records = list_append(#records, :records), updatedDate = :now',
          ConditionExpression: 'customer = :customer',
          ExpressionAttributeNames: { '#records': 'records' },
          ExpressionAttributeValues: { ':records': records, ':now': stamp, ':customer': principal.customer },
        },
      })),
    ];
    return { state, process, items };
  };

  // The ids are claimed inside the transaction (db/transactions.ts): no call of their own.
  let ids: { process: number; certificate?: number };
  try {
    ids = immediate
      ? await transactWithIds({ process: counters.process, certificate: counters.certificate }, (claimed) => build(claimed).items)
      : await transactWithIds({ process: counters.process }, (claimed) => build(claimed).items);
  } catch (error) {
    const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
    if ((error as Error).name === 'TransactionCanceledException' && reasons?.[0]?.Code === 'ConditionalCheckFailed') {
      throw new ObjectStatusProhibitsOperation(
        `Certificate ${certificate.id} has an open renewal or was renewed meanwhile; one renewal at a time.`,
      );
    }
    throw error;
  }
  const { state, process } = build(ids);
  return { processId: ids.process, completed: process.status === 'COMPLETED', view: certificateInfo(process, state, authority, at) };
}
